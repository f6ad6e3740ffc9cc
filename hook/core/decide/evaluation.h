// What the pipeline found for one container (host/decide/pipeline.h fills it): its GPUs, its cgroup and
// mems, and the Decision. Plain data, rendered by report/report.h.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cgroup/cgroup_location.h"
#include "cgroup/cpuset_mems.h"
#include "decide/decision.h"
#include "gpu/gpu.h"
#include "gpu/memory_mode.h"
#include "require/cuda_requirement.h"

namespace gnh {

struct Evaluation {
  bool gpu_requested = false;            // false: the fast path, nothing else was read
  std::vector<Gpu> gpus;                 // the container's GPUs
  std::vector<std::string> unresolved;   // GPU references not found on this host
  std::vector<std::string> sources;      // where the request came from
  DriverMemoryMode memory_mode;          // read once a GPU is requested
  std::optional<CpusetLocation> location;
  bool cgroup_predicted = false;         // explain without a pid: where the runtime will create it
  CpusetMems mems;
  NodeSet host_memory_nodes;
  NodeSet root_mems;
  Decision decision;
  // The image's NVIDIA_REQUIRE_* against the driver (read only for a container that gets GPUs).
  RequirementCheck requirement;

  std::string gpu_list() const;  // "/dev/nvidia0(0000:00:06.0),..." or "-"
};


}  // namespace gnh
