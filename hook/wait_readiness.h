// Whether the GPU memory the driver reports is usable by new containers: each GPU memory node
// online (numa_status), in the kernel's memory nodes and in the root cpuset. Pure.
#pragma once

#include <string>
#include <vector>

#include "gpu.h"
#include "node_set.h"

namespace gnh {

struct PendingGpuNode {
  std::string gpu;  // "/dev/nvidia3"
  int node = -1;
  std::string why;  // "numa_status online_in_progress", "not in has_memory", "not in the root cpuset"
};

struct Readiness {
  size_t gpu_nodes = 0;                 // GPUs whose memory is a NUMA node
  std::vector<PendingGpuNode> pending;  // the ones not usable yet, in inventory order

  bool ready() const { return pending.empty(); }
};

Readiness assess_readiness(const Inventory& inv, const NodeSet& memory_nodes, const NodeSet& root_mems);

// One progress line: "3 of 4 GPU memory nodes ready; waiting for 252 (/dev/nvidia3: numa_status offline)"
std::string readiness_line(const Readiness& r);

}  // namespace gnh
