// Whether the GPU memory the driver reports is usable by new containers, for `wait`: every GPU's
// memory state (gpu/memory_state.h) ready. Pure.
#pragma once

#include <string>
#include <vector>

#include "gpu/gpu.h"
#include "gpu/memory_state.h"

namespace gnh {

struct PendingGpuNode {
  std::string gpu;  // "/dev/nvidia3"
  int node = -1;  // -1: unknown (numa_status unreadable)
  GpuMemoryState state = GpuMemoryState::offline;
  std::string why;  // "numa_status online_in_progress", "not in has_memory", "not in the root cpuset"
};

struct Readiness {
  size_t gpu_nodes = 0;                 // GPUs whose memory a container needs as a node
  std::vector<PendingGpuNode> pending;  // the ones not usable yet, in inventory order
  // Grace GPUs not initialized (persistence mode off): their node comes only with the GPU's first
  // client, a container, so waiting for it before containers start would wait forever. Not waited
  // for, only reported (gpu/memory_state.h not_initialized).
  std::vector<PendingGpuNode> not_initialized;

  bool ready() const { return pending.empty(); }
  // A pending node that waiting alone will not make ready (gpu/memory_state.h needs_operator).
  bool never() const;
};

Readiness assess_readiness(const Inventory& inv, const HostMemoryFacts& host);

// One progress line: "3 of 4 GPU memory nodes ready; waiting for 252 (/dev/nvidia3: numa_status offline)"
std::string readiness_line(const Readiness& r);

// `wait --json`: one object when wait ends. result: "ready", "timed_out" or "not_waiting" (a node
// waiting cannot bring). {"schema_version":1,"result":...,"waited_seconds":...,"gpu_nodes":4,
// "ready_nodes":3,"pending":[{"gpu","node","state","why"}],"not_initialized":[...],"message":line}
std::string readiness_json(const Readiness& r, const std::string& result, double waited_seconds);

}  // namespace gnh
