#include "decide/decision.h"

#include <doctest/doctest.h>

using namespace gnh;

namespace {

Gpu coherent(unsigned minor, int node, const char* status = "online") {
  Gpu g;
  g.minor = minor;
  g.bus_id = "0004:0" + std::to_string(minor + 4) + ":00.0";
  g.memory_node = node;
  g.memory_status = status;
  g.affinity_node = 0;
  return g;
}

Gpu pcie(unsigned minor, std::optional<int> nearest) {
  Gpu g;
  g.minor = minor;
  g.bus_id = "0000:0" + std::to_string(minor) + ":00.0";
  g.affinity_node = nearest;
  return g;
}

// An AC922 after nvidia-persistenced onlined 252-255 while /docker kept 0,8.
DecisionInput ac922_stale() {
  DecisionInput in;
  in.gpus = {coherent(3, 252)};
  in.host_memory_nodes = *NodeSet::parse("0,8,252-255");
  in.root_mems = in.host_memory_nodes;
  in.cgroup = "/docker/3f2a";
  in.effective = NodeSet::of({0, 8});
  return in;
}

}  // namespace

TEST_CASE("healthy: the GPU node is already allowed") {
  DecisionInput in = ac922_stale();
  in.effective = *NodeSet::parse("0,8,252-255");
  Decision d = decide(in);
  CHECK(d.action == Action::allow);
  CHECK(d.required.to_string() == "252");
  CHECK(d.missing.empty());
}

TEST_CASE("stale slice, policy patch: add exactly the missing node") {
  Decision d = decide(ac922_stale());
  CHECK(d.action == Action::patch);
  CHECK(d.to_add.to_string() == "252");
  CHECK(d.missing.to_string() == "252");
  CHECK(d.message.find("252") != std::string::npos);
}

TEST_CASE("stale slice, policy refuse: one line naming GPU, node, cgroup, mems, policy and fix") {
  DecisionInput in = ac922_stale();
  in.policy.missing_node = MissingNodePolicy::refuse;
  Decision d = decide(in);
  CHECK(d.action == Action::refuse);
  CHECK(d.to_add.empty());
  CHECK(d.message ==
        "GPU /dev/nvidia3 (0004:07:00.0) needs NUMA node 252 but cgroup /docker/3f2a allows only 0,8 "
        "(policy missing-node=refuse); run 'gpu-numa-hook check --fix' or restart the container service "
        "after nvidia-persistenced");
}

TEST_CASE("stale slice, policy warn: allowed, with the consequence spelled out") {
  DecisionInput in = ac922_stale();
  in.policy.missing_node = MissingNodePolicy::warn;
  Decision d = decide(in);
  CHECK(d.action == Action::warn);
  CHECK(d.message.find("first CUDA allocation will fail") != std::string::npos);
}

TEST_CASE("GPU memory not online yet: refused whatever the policy") {
  for (auto policy : {MissingNodePolicy::patch, MissingNodePolicy::warn, MissingNodePolicy::refuse}) {
    DecisionInput in = ac922_stale();
    in.policy.missing_node = policy;
    in.gpus = {coherent(3, 252, "online_in_progress")};
    Decision d = decide(in);
    CHECK(d.action == Action::refuse);
    CHECK(d.message.find("is not online yet (numa_status: online_in_progress") != std::string::npos);
  }
  DecisionInput offline_node = ac922_stale();
  offline_node.host_memory_nodes = NodeSet::of({0, 8});
  offline_node.root_mems = NodeSet::of({0, 8});
  Decision d = decide(offline_node);
  CHECK(d.action == Action::refuse);
  CHECK(d.message.find("memory NUMA node 252 is online for the driver but not yet a memory node of the kernel "
                       "(host memory nodes: 0,8); its memory blocks are not online yet") != std::string::npos);
}

TEST_CASE("online but missing from the root cpuset cannot be patched") {
  DecisionInput in = ac922_stale();
  in.root_mems = NodeSet::of({0, 8});
  Decision d = decide(in);
  CHECK(d.action == Action::refuse);
  CHECK(d.message.find("not in the root cpuset") != std::string::npos);
}

TEST_CASE("explicit cpuset mems: widened by default with exactly the GPU memory node, and said so - respect refuses") {
  DecisionInput in = ac922_stale();
  in.explicit_mems = NodeSet::of({0});
  Decision widened = decide(in);
  CHECK(widened.action == Action::patch);
  CHECK(widened.to_add == NodeSet::of({252}));
  CHECK(widened.message.find("; overriding the container's explicit cpuset mems 0 (linux.resources.cpu.mems; policy "
                             "explicit-mems=widen) with its GPUs' memory NUMA node 252") != std::string::npos);
  in.policy.explicit_mems = ExplicitMemsPolicy::respect;
  Decision d = decide(in);
  CHECK(d.action == Action::refuse);
  CHECK(d.message.find("sets cpuset mems explicitly to 0") != std::string::npos);
  CHECK(d.message.find("explicit-mems=respect") != std::string::npos);
  // An explicit value that already holds the GPU node is no conflict.
  in.explicit_mems = NodeSet::of({0, 252});
  CHECK(decide(in).action == Action::patch);
}

TEST_CASE("explicit cpuset mems: widening never adds a nearest node, even under gpu-affinity=patch") {
  DecisionInput in = ac922_stale();
  in.gpus[0].affinity_node = 8;
  in.effective = NodeSet::of({0});
  in.explicit_mems = NodeSet::of({0});
  in.policy.gpu_affinity = AffinityPolicy::patch;
  Decision d = decide(in);
  CHECK(d.action == Action::patch);
  CHECK(d.to_add == NodeSet::of({252}));  // the memory node only; 8 is left to the user's choice
  CHECK(d.message.find("explicit cpuset mems respected") != std::string::npos);
}

TEST_CASE("disabled coherent memory (CDMM) requires nothing") {
  DecisionInput in = ac922_stale();
  in.gpus = {coherent(0, 1, "disabled")};
  Decision d = decide(in);
  CHECK(d.action == Action::allow);
  CHECK(d.required.empty());
}

TEST_CASE("PCIe affinity: ignored by default, then warn / patch / refuse") {
  DecisionInput in;
  in.gpus = {pcie(0, 1)};
  in.host_memory_nodes = NodeSet::of({0, 1});
  in.root_mems = NodeSet::of({0, 1});
  in.cgroup = "/kubepods.slice/x";
  in.effective = NodeSet::of({0});
  CHECK(decide(in).action == Action::allow);
  in.policy.gpu_affinity = AffinityPolicy::warn;
  CHECK(decide(in).action == Action::warn);
  in.policy.gpu_affinity = AffinityPolicy::patch;
  Decision p = decide(in);
  CHECK(p.action == Action::patch);
  CHECK(p.to_add.to_string() == "1");
  in.policy.gpu_affinity = AffinityPolicy::refuse;
  Decision r = decide(in);
  CHECK(r.action == Action::refuse);
  CHECK(r.message.find("gpu-affinity=refuse") != std::string::npos);
  // Patch never reaches for a node the host cannot give; it warns instead.
  in.policy.gpu_affinity = AffinityPolicy::patch;
  in.host_memory_nodes = NodeSet::of({0});
  in.root_mems = NodeSet::of({0});
  CHECK(decide(in).action == Action::warn);
  // PCIe GPU without affinity (-1): nothing to want.
  in.gpus = {pcie(0, std::nullopt)};
  CHECK(decide(in).action == Action::allow);
}

TEST_CASE("several GPUs: the union of their nodes, naming the first that is missing") {
  DecisionInput in = ac922_stale();
  in.gpus = {coherent(0, 255), coherent(1, 253), coherent(3, 252)};
  in.effective = *NodeSet::parse("0,8,255");
  Decision d = decide(in);
  CHECK(d.action == Action::patch);
  CHECK(d.required.to_string() == "252-253,255");
  CHECK(d.to_add.to_string() == "252-253");
}

TEST_CASE("a node the kernel can never have: refused without advising to wait") {
  DecisionInput in = ac922_stale();
  in.possible_nodes = NodeSet::of({0});
  in.gpus = {coherent(0, 1)};
  in.gpus[0].overridden = true;
  Decision d = decide(in);
  CHECK(d.action == Action::refuse);
  CHECK(d.message == "GPU /dev/nvidia0 (0004:04:00.0) memory NUMA node 1 (from a [[topology.gpu]] override) is not a "
                     "NUMA node of this host (possible nodes: 0); fix the override in the gpu-numa-hook config");
  in.gpus[0].overridden = false;
  CHECK(decide(in).message.find("(from the driver's numa_status) is not a NUMA node of this host") != std::string::npos);
}

// Issue 20: MIG in NUMA mode. numa_status fails with EIO; the NVML cache names each instance's node.
namespace {
Gpu mig_gpu(std::vector<std::optional<int>> nodes) {
  Gpu g;
  g.minor = 1;
  g.bus_id = "0009:01:00.0";
  g.memory_read_errno = 5;  // EIO
  g.memory_read_error = "cannot read numa_status: EIO";
  unsigned i = 0;
  for (auto n : nodes) {
    g.mig_instances.push_back({"MIG-" + std::to_string(i), "1:" + std::to_string(i), i + 1, 0, n});
    ++i;
  }
  return g;
}
DecisionInput gb200_v1(Gpu g) {
  DecisionInput in;
  in.gpus = {std::move(g)};
  in.host_memory_nodes = *NodeSet::parse("0-1,10-11,18-19");
  in.root_mems = in.host_memory_nodes;
  in.possible_nodes = *NodeSet::parse("0-35");
  in.cgroup = "/docker/c1";
  in.effective = NodeSet::of({0, 1});
  return in;
}
}  // namespace

TEST_CASE("MIG with the cache: the instance's node is required and patched in") {
  Decision d = decide(gb200_v1(mig_gpu({18})));
  CHECK(d.action == Action::patch);
  CHECK(d.required.to_string() == "18");
  CHECK(d.to_add.to_string() == "18");
  CHECK(d.message == "adding NUMA node 18 for the container's GPUs to cgroup /docker/c1 (had 0-1); GPU /dev/nvidia1 "
                     "(0009:01:00.0) is in MIG mode (numa_status EIO): the container's MIG instances 1:0=node 18 (NVML "
                     "cache)");
}

TEST_CASE("MIG with the cache and policy refuse - the refusal names the GPU and the missing node") {
  DecisionInput in = gb200_v1(mig_gpu({18, 19}));
  in.policy.missing_node = MissingNodePolicy::refuse;
  Decision d = decide(in);
  CHECK(d.action == Action::refuse);
  CHECK(d.message.rfind("GPU /dev/nvidia1 (0009:01:00.0) needs NUMA nodes 18-19 but cgroup /docker/c1 allows only 0-1 "
                        "(policy missing-node=refuse)", 0) == 0);
}

TEST_CASE("MIG with the cache: an instance node the kernel does not have yet is refused - one without a node needs none") {
  DecisionInput in = gb200_v1(mig_gpu({std::nullopt, 26}));
  Decision d = decide(in);
  CHECK(d.action == Action::refuse);
  CHECK(d.message.rfind("GPU /dev/nvidia1 (0009:01:00.0) MIG 1:1 (MIG-1) memory NUMA node 26 is online for the driver "
                        "but not yet a memory node of the kernel", 0) == 0);
  Decision none = decide(gb200_v1(mig_gpu({std::nullopt})));
  CHECK(none.action == Action::allow);
  CHECK(none.required.empty());
}

TEST_CASE("MIG without the cache - today's behaviour, no node required") {
  Decision d = decide(gb200_v1(mig_gpu({})));
  CHECK(d.action == Action::allow);
  CHECK(d.required.empty());
  CHECK(d.message.find("numa_status cannot be read (EIO), as while MIG instances are active") != std::string::npos);
}
