// The real spec of every running container, for the unprotected-GPU-container finding
// (check/unprotected_containers.h): from runc's and crun's records in every state root `check`
// walks (running_containers.h), each record's bundle, whatever engine made it (Docker's
// /run/docker/..., containerd's /run/containerd/io.containerd.runtime.v2.task/<ns>/<id>, CRI-O's
// .../overlay-containers/<id>/userdata, podman's). Reads only.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "check/unprotected_containers.h"
#include "host/cgroup/cpuset_tree.h"
#include "host/fs/host_fs.h"

namespace gnh {

// `each` gets every running container's record and spec, one at a time: the spec is not kept (a
// node's 1,000 specs need not all be in memory at once). A container counts as running while its
// cgroup in `tree`'s hierarchy has tasks (as `check` judges it); records gone meanwhile, without a
// cgroup or bundle, or in another hierarchy are skipped (a container exiting while this runs is not
// a finding). Returns the state records looked at. Failure only when a state root cannot be listed.
size_t for_each_running_container_spec(const HostFs& fs, const CpusetTree& tree,
                                       const std::function<void(ObservedContainer&&)>& each);

struct RunningContainersScan {
  size_t running = 0;
  UnprotectedScan scan;
};
// What status and check report: the running containers counted, those unprotected judged
// (check/unprotected_containers.h) as each spec is read.
RunningContainersScan scan_running_containers(const HostFs& fs, const CpusetTree& tree);

}  // namespace gnh
