#include "check/readiness.h"

#include <doctest/doctest.h>

#include <cerrno>

using namespace gnh;

namespace {
Gpu gpu(unsigned minor, std::optional<int> node, const char* status) {
  Gpu g;
  g.minor = minor;
  g.memory_node = node;
  if (node) g.memory_status = status;
  return g;
}
}  // namespace

TEST_CASE("ready only when every GPU node is online, in has_memory and in the root cpuset") {
  Inventory inv;
  inv.gpus = {gpu(0, 255, "online"), gpu(1, 254, "online_in_progress"), gpu(2, 253, "online"), gpu(3, 252, "online")};
  Readiness r = assess_readiness(inv, {*NodeSet::parse("0,8,252-253,255"), *NodeSet::parse("0,8,253,255"), NodeSet()});
  CHECK_FALSE(r.ready());
  CHECK(r.gpu_nodes == 4);
  REQUIRE(r.pending.size() == 2);
  CHECK(r.pending[0].node == 254);
  CHECK(r.pending[0].why == "numa_status online_in_progress");
  CHECK(r.pending[1].node == 252);
  CHECK(r.pending[1].why == "not in the root cpuset");
  CHECK(readiness_line(r) ==
        "2 of 4 GPU memory nodes ready; waiting for 254 (/dev/nvidia1: numa_status online_in_progress), "
        "252 (/dev/nvidia3: not in the root cpuset)");

  Readiness not_memory = assess_readiness(inv, {*NodeSet::parse("0,8"), *NodeSet::parse("0,8,252-255"), NodeSet()});
  CHECK(not_memory.pending[0].why == "not in has_memory");

  inv.gpus[1].memory_status = "online";
  Readiness ok = assess_readiness(inv, {*NodeSet::parse("0,8,252-255"), *NodeSet::parse("0,8,252-255"), NodeSet()});
  CHECK(ok.ready());
  CHECK(readiness_line(ok) == "4 of 4 GPU memory nodes ready");
}

TEST_CASE("hosts whose GPUs are not NUMA nodes are ready at once") {
  Inventory inv;
  inv.gpus = {gpu(0, std::nullopt, ""), gpu(1, std::nullopt, "")};
  Readiness r = assess_readiness(inv, {NodeSet::of({0}), NodeSet::of({0}), NodeSet()});
  CHECK(r.ready());
  CHECK(r.gpu_nodes == 0);
  CHECK(readiness_line(r) == "no GPU memory NUMA nodes reported by the driver");
}

TEST_CASE("a GPU whose memory the driver disabled is not waited for - a node the kernel can never have is never ready") {
  Inventory inv;
  inv.gpus = {gpu(0, 1, "disabled")};
  Readiness disabled = assess_readiness(inv, {NodeSet::of({0}), NodeSet::of({0}), NodeSet::of({0, 1})});
  CHECK(disabled.ready());
  CHECK(disabled.gpu_nodes == 0);

  inv.gpus = {gpu(0, 9, "online")};
  Readiness never = assess_readiness(inv, {NodeSet::of({0}), NodeSet::of({0}), NodeSet::of({0, 1})});
  CHECK_FALSE(never.ready());
  CHECK(never.never());
  CHECK(readiness_line(never) == "0 of 1 GPU memory nodes ready; never ready: 9 (/dev/nvidia0: not a NUMA node of this host, it never will be)");
}

TEST_CASE("a GPU in MIG mode: each GPU instance's node the NVML cache names is waited for") {
  Inventory inv;
  Gpu mig = gpu(1, std::nullopt, "");
  mig.memory_read_errno = EIO;  // numa_status while MIG instances exist
  mig.memory_read_error = "cannot read numa_status: EIO";
  inv.gpus = {gpu(0, 2, "online"), mig};
  HostMemoryFacts host{*NodeSet::parse("0,2,10"), *NodeSet::parse("0,2,10-11"), NodeSet()};
  // Instances unknown (no cache): as before, the MIG GPU needs no node.
  Readiness unknown = assess_readiness(inv, host);
  CHECK(unknown.ready());
  CHECK(readiness_line(unknown) == "1 of 1 GPU memory nodes ready");
  inv.gpus[1].mig_instances = {{"MIG-a", "1:0", 1, 0, 10}, {"MIG-b", "1:1", 2, 0, 11}, {"MIG-c", "1:2", 3, 0, std::nullopt}};
  Readiness r = assess_readiness(inv, host);
  CHECK_FALSE(r.ready());
  CHECK(r.gpu_nodes == 3);
  REQUIRE(r.pending.size() == 1);
  CHECK(r.pending[0].node == 11);
  CHECK(readiness_line(r) == "2 of 3 GPU memory nodes ready; waiting for 11 (/dev/nvidia1: not in has_memory)");
  host.memory_nodes = *NodeSet::parse("0,2,10-11");
  CHECK(assess_readiness(inv, host).ready());
}
