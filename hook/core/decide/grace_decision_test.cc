// Grace (GH200/GB200) without persistence mode: numa_status "offline" means the GPU is not
// initialized yet and the driver adds its memory at the first client (docs/platforms/grace.md). The
// classifier's new states and what the decision makes of them on v1 and v2.
#include <doctest/doctest.h>

#include "decide/decision.h"
#include "gpu/memory_state.h"
#include "gpu/self_onlining.h"

using namespace gnh;

namespace {

Gpu gh200(const char* status = "offline") {
  Gpu g;
  g.minor = 0;
  g.bus_id = "0009:01:00.0";
  g.memory_node = 1;
  g.memory_status = status;
  g.self_onlining = true;
  g.affinity_node = 0;
  return g;
}

// A GH200 before its first client: node 0 only, node 1 possible (the firmware's range 1-8).
DecisionInput gh200_v2() {
  DecisionInput in;
  in.gpus = {gh200()};
  in.host_memory_nodes = NodeSet::of({0});
  in.root_mems = NodeSet::of({0});
  in.possible_nodes = *NodeSet::parse("0-8");
  in.cgroup = "/system.slice/docker-3f2a.scope";
  in.effective = NodeSet::of({0});
  in.cgroup_v2 = true;
  in.auto_online_blocks = "online_movable";
  return in;
}

}  // namespace

TEST_CASE("self-hosted: the driver's PCI id ranges and the model fallback") {
  CHECK(is_self_hosted_device_id(0x2342));  // GH200
  CHECK(is_self_hosted_device_id(0x2340));
  CHECK(is_self_hosted_device_id(0x237f));
  CHECK(is_self_hosted_device_id(0x2941));  // GB200
  CHECK(is_self_hosted_device_id(0x31c2));
  CHECK(is_self_hosted_device_id(0x31a1));
  CHECK_FALSE(is_self_hosted_device_id(0x2335));  // H200 SXM (PCIe-attached)
  CHECK_FALSE(is_self_hosted_device_id(0x1db1));  // V100 SXM2 (AC922)
  CHECK(parse_pci_device_id("0x2342\n") == 0x2342u);
  CHECK_FALSE(parse_pci_device_id("garbage"));
  CHECK_FALSE(parse_pci_device_id("0x123456"));
  CHECK(is_self_hosted_model("NVIDIA GH200 480GB"));
  CHECK_FALSE(is_self_hosted_model("NVIDIA H200"));
}

TEST_CASE("memory state: offline on a self-onlining GPU is not_initialized, or wont_online without online_movable") {
  HostMemoryFacts host{NodeSet::of({0}), NodeSet::of({0}), *NodeSet::parse("0-8"), "online_movable"};
  CHECK(classify_gpu_memory(gh200(), host) == GpuMemoryState::not_initialized);
  CHECK(needs_memory_node(GpuMemoryState::not_initialized));
  CHECK_FALSE(needs_operator(GpuMemoryState::not_initialized));
  // Unknown (no file): the driver's own check decides later; not called a problem now.
  host.auto_online_blocks = "";
  CHECK(classify_gpu_memory(gh200(), host) == GpuMemoryState::not_initialized);
  host.auto_online_blocks = "offline";
  CHECK(classify_gpu_memory(gh200(), host) == GpuMemoryState::wont_online);
  CHECK(needs_operator(GpuMemoryState::wont_online));
  // Other statuses keep their meaning on Grace; an AC922 GPU offline stays "offline" (wait).
  CHECK(classify_gpu_memory(gh200("online_in_progress"), host) == GpuMemoryState::offline);
  Gpu ac922 = gh200();
  ac922.self_onlining = false;
  CHECK(classify_gpu_memory(ac922, host) == GpuMemoryState::offline);
  // A node outside the possible ones is impossible first.
  Gpu bad = gh200();
  bad.memory_node = 40;
  CHECK(classify_gpu_memory(bad, host) == GpuMemoryState::impossible_node);
}

TEST_CASE("grace v2, mems inherited: allow, the node comes with the first client") {
  Decision d = decide(gh200_v2());
  CHECK(d.action == Action::allow);
  CHECK(d.required.to_string() == "1");
  CHECK(d.missing.empty());
  CHECK(d.to_add.empty());
  CHECK(d.message ==
        "cgroup /system.slice/docker-3f2a.scope allows 0 and inherits NUMA node 1 when the driver adds it; GPU "
        "/dev/nvidia0 (0009:01:00.0) memory NUMA node 1 is not initialized (persistence mode off): the driver adds it "
        "at the GPU's first client, and on cgroup v2 the container, which inherits its mems, gets it then");
}

TEST_CASE("grace v2, explicit mems without the node: patch it in now, unless the policy says otherwise") {
  DecisionInput in = gh200_v2();
  in.explicit_mems = NodeSet::of({0});
  in.chain_explicit_mems = {NodeSet::of({0})};
  Decision d = decide(in);
  CHECK(d.action == Action::patch);
  CHECK(d.to_add.to_string() == "1");
  CHECK(d.arrives_later.to_string() == "1");
  CHECK(d.message.find("overriding the container's explicit cpuset mems 0") != std::string::npos);
  CHECK(d.message.find("; NUMA node 1 not online yet: the GPU is not initialized (persistence mode off); cgroup v2 "
                       "takes a possible node in cpuset.mems now") != std::string::npos);

  in.policy.explicit_mems = ExplicitMemsPolicy::respect;
  d = decide(in);
  CHECK(d.action == Action::refuse);
  CHECK(d.arrives_later.empty());
  CHECK(d.message.find("sets cpuset mems explicitly to 0") != std::string::npos);

  // An ancestor with explicit mems (kubelet's) without the node, the container inheriting: patch.
  in = gh200_v2();
  in.chain_explicit_mems = {NodeSet::of({0})};
  d = decide(in);
  CHECK(d.action == Action::patch);
  CHECK(d.to_add.to_string() == "1");
  // Every explicit level already has it: allow.
  in.chain_explicit_mems = {NodeSet::of({0, 1})};
  CHECK(decide(in).action == Action::allow);
}

TEST_CASE("grace v1: refuse, naming persistence mode") {
  DecisionInput in = gh200_v2();
  in.cgroup_v2 = false;
  in.cgroup = "/docker/3f2a";
  Decision d = decide(in);
  CHECK(d.action == Action::refuse);
  CHECK(d.message ==
        "GPU /dev/nvidia0 (0009:01:00.0) memory NUMA node 1 is not online: the GPU is not initialized (persistence "
        "mode off), numa_status: offline; the driver adds its memory at the GPU's first client, after this container "
        "started, and on cgroup v1 a running container never gains a node; enable persistence mode (start "
        "nvidia-persistenced, or 'nvidia-smi -pm 1') so the memory is online before containers start");
}

TEST_CASE("grace, auto_online_blocks not online_movable: refuse on v1 and v2, naming the setting") {
  DecisionInput in = gh200_v2();
  in.auto_online_blocks = "offline";
  Decision d = decide(in);
  CHECK(d.action == Action::refuse);
  CHECK(d.message.rfind("GPU /dev/nvidia0 (0009:01:00.0) memory NUMA node 1 is not initialized (persistence mode off) "
                        "(numa_status: offline) and the driver will refuse to online it: "
                        "/sys/devices/system/memory/auto_online_blocks is 'offline'", 0) == 0);
}
