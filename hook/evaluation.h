// The hook's pipeline from a container's config.json (and pid) to a Decision: request -> topology
// -> cgroup -> decision. Shared by hook mode (which then acts) and `explain` (which only prints).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cgroup_location.h"
#include "config.h"
#include "cpuset_tree.h"
#include "decision.h"
#include "gpu.h"
#include "host_fs.h"
#include "spec.h"

namespace gnh {

struct Evaluation {
  bool gpu_requested = false;            // false: the fast path, nothing else was read
  std::vector<Gpu> gpus;                 // the container's GPUs
  std::vector<std::string> unresolved;   // GPU references not found on this host
  std::vector<std::string> sources;      // where the request came from
  std::optional<CpusetLocation> location;
  bool cgroup_predicted = false;         // explain without a pid: where the runtime will create it
  CpusetMems mems;
  NodeSet host_memory_nodes;
  NodeSet root_mems;
  Decision decision;

  std::string gpu_list() const;  // "/dev/nvidia0(0000:00:06.0),..." or "-"
};

// pid > 0: the container's cgroup from /proc/<pid>/cgroup. pid == 0: predicted from
// linux.cgroupsPath (the nearest existing ancestor's mems are what a runtime would copy).
// Throws Failure with context for anything the hook cannot read.
Evaluation evaluate(const HostFs& fs, const Config& config, const oci::Spec& spec, int pid);

}  // namespace gnh
