#include "gpu/memory_state.h"

#include <doctest/doctest.h>

#include <cerrno>

using namespace gnh;

namespace {
Gpu gpu(std::optional<int> node, std::optional<std::string> status) {
  Gpu g;
  g.minor = 3;
  g.bus_id = "0035:04:00.0";
  g.memory_node = node;
  g.memory_status = status;
  return g;
}
// An AC922 with node 252 fully usable; 253 in the kernel but not in the root cpuset.
const HostMemoryFacts kHost{NodeSet::of({0, 8, 252, 253}), NodeSet::of({0, 8, 252}), NodeSet::of({0, 8, 252, 253, 254, 255})};
}  // namespace

TEST_CASE("memory state: each state from the facts that make it") {
  CHECK(classify_gpu_memory(gpu(std::nullopt, std::nullopt), kHost) == GpuMemoryState::none);
  CHECK(classify_gpu_memory(gpu(252, "disabled"), kHost) == GpuMemoryState::disabled);
  CHECK(classify_gpu_memory(gpu(300, "online"), kHost) == GpuMemoryState::impossible_node);
  CHECK(classify_gpu_memory(gpu(254, "online_in_progress"), kHost) == GpuMemoryState::offline);
  CHECK(classify_gpu_memory(gpu(254, "offline"), kHost) == GpuMemoryState::offline);
  CHECK(classify_gpu_memory(gpu(254, "online"), kHost) == GpuMemoryState::not_in_kernel);
  CHECK(classify_gpu_memory(gpu(253, "online"), kHost) == GpuMemoryState::not_in_root);
  CHECK(classify_gpu_memory(gpu(252, "online"), kHost) == GpuMemoryState::usable);
}

TEST_CASE("memory state: a node that can never exist is impossible even while offline - unknown possible nodes never are") {
  CHECK(classify_gpu_memory(gpu(300, "offline"), kHost) == GpuMemoryState::impossible_node);
  HostMemoryFacts unknown = kHost;
  unknown.possible_nodes = NodeSet();
  CHECK(classify_gpu_memory(gpu(300, "online"), unknown) == GpuMemoryState::not_in_kernel);
}

TEST_CASE("memory state: which states need a node and which are ready") {
  CHECK(!needs_memory_node(GpuMemoryState::none));
  CHECK(!needs_memory_node(GpuMemoryState::disabled));
  CHECK(needs_memory_node(GpuMemoryState::offline));
  CHECK(is_ready(GpuMemoryState::disabled));
  CHECK(is_ready(GpuMemoryState::usable));
  CHECK(!is_ready(GpuMemoryState::not_in_root));
  CHECK(!is_ready(GpuMemoryState::impossible_node));
}

TEST_CASE("memory state: the driver's failures, memory being taken away, MIG's EIO and other read errors") {
  CHECK(classify_gpu_memory(gpu(252, "online_failed"), kHost) == GpuMemoryState::failed);
  CHECK(classify_gpu_memory(gpu(252, "offline_failed"), kHost) == GpuMemoryState::failed);
  CHECK(classify_gpu_memory(gpu(252, "offline_in_progress"), kHost) == GpuMemoryState::going_offline);
  CHECK(classify_gpu_memory(gpu(252, "invalid"), kHost) == GpuMemoryState::offline);  // the driver's out-of-range word
  Gpu mig = gpu(std::nullopt, std::nullopt);
  mig.memory_read_errno = EIO;
  CHECK(classify_gpu_memory(mig, kHost) == GpuMemoryState::mig);
  CHECK_FALSE(needs_memory_node(GpuMemoryState::mig));
  Gpu broken = mig;
  broken.memory_read_errno = EACCES;
  CHECK(classify_gpu_memory(broken, kHost) == GpuMemoryState::unreadable);
  CHECK(needs_operator(GpuMemoryState::unreadable));
  CHECK(needs_operator(GpuMemoryState::failed));
  CHECK_FALSE(needs_operator(GpuMemoryState::going_offline));
}
