// The real spec of every running container, for the unprotected-GPU-container finding
// (check/unprotected_containers.h): from runc's and crun's records in every state root `check`
// walks (running_containers.h), each record's bundle, whatever engine made it (Docker's
// /run/docker/..., containerd's /run/containerd/io.containerd.runtime.v2.task/<ns>/<id>, CRI-O's
// .../overlay-containers/<id>/userdata, podman's). Reads only.
#pragma once

#include <string>
#include <vector>

#include "check/unprotected_containers.h"
#include "host/cgroup/cpuset_tree.h"
#include "host/fs/host_fs.h"

namespace gnh {

struct ContainerSpecs {
  std::vector<ObservedContainer> running;
  size_t records = 0;  // state records looked at, running or not
};

// A container counts as running while its cgroup in `tree`'s hierarchy has tasks (as `check`
// judges it); records gone meanwhile, without a cgroup or bundle, or in another hierarchy are
// skipped (a container exiting while this runs is not a finding). Failure only when a state root
// cannot be listed.
ContainerSpecs read_running_container_specs(const HostFs& fs, const CpusetTree& tree);

}  // namespace gnh
