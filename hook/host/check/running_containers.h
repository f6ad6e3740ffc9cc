// `check`'s view of running containers: runc's and crun's state directories (their own roots,
// Docker's and containerd's), each container's bundle for its GPUs (as the runtime shim's update
// reads them), its cgroup now; and `check --fix` for one that lost its GPU's node, through the
// hook's patch and, where systemd owns the cgroup, its unit's AllowedMemoryNodes=.
#pragma once

#include <string>
#include <vector>

#include "check/container_drift.h"
#include "config/config.h"
#include "host/cgroup/cpuset_tree.h"
#include "host/fs/host_fs.h"
#include "systemd/systemd_unit.h"

namespace gnh {

// Every state root of runc and crun that engines use by default: /run/runc, /run/crun,
// /run/docker/runtime-<runtime>/<ns>, /run/containerd/runc/<ns> (every namespace), those present.
std::vector<std::string> runtime_state_roots(const HostFs& fs);

// The roots looked at: /run/runc, /run/crun, /run/docker/runtime-<runtime>/<ns>,
// /run/containerd/runc/<ns>; in each, a container is crun's (<id>/status) or runc's (<id>/state.json).
// Containers without GPUs, without tasks or whose state cannot be read are skipped (a container
// exiting while check runs is not a finding). With --host-root every path (the roots, what the
// state files name) is read beneath it.
std::vector<RunningGpuContainer> find_running_gpu_containers(const HostFs& fs, const Config& config,
                                                             const CpusetTree& tree);

// Re-reads the container's cgroup under the hook's lock and adds its missing GPU nodes as the hook
// does at start (top-down through explicit parents); a widening that would remap its running
// tasks' bound memory is left alone. The units told are appended to `told`.
ContainerFix fix_lost_gpu_node(const HostFs& fs, const Config& config, const CpusetTree& tree,
                               const CpusetLocation& loc, const LostGpuNode& lost, std::vector<UnitUpdate>* told);

}  // namespace gnh
