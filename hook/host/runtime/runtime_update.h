// `runc update` through the shim: what the container has now and which of its nodes are GPU memory
// nodes, read from runc's state (<root>/<id>/state.json) and the container's bundle.
#pragma once

#include <string>

#include "base/node_set.h"
#include "config/config.h"
#include "host/fs/host_fs.h"

namespace gnh {

struct RunningContainer {
  std::string cpuset_dir;   // the container's cpuset cgroup directory
  NodeSet current_mems;     // its cpuset.mems now
  NodeSet gpu_nodes;        // memory nodes of the GPUs it was given
  std::string gpus;         // for the log ("/dev/nvidia0(0000:00:06.0)"), "-" for none
};

// Failure naming the file when runc's state, the bundle or the cgroup cannot be read.
// Whether runc has state for this container id under its root (a plain id only).
bool runc_knows_container(const std::string& runc_root, const std::string& id);
RunningContainer read_running_container(const std::string& runc_root, const std::string& id, const Config& cfg);
// The same beneath `fs`'s root (`check --host-root /host` in a DaemonSet): runc_root, and the
// paths runc's state names, are host paths.
RunningContainer read_running_container(const HostFs& fs, const std::string& runc_root, const std::string& id,
                                        const Config& cfg);
// What any runtime's record leads to: the container's cpuset directory (a host path) and bundle.
// `what` names that record in failures.
RunningContainer read_container_at(const HostFs& fs, const std::string& cpuset_dir, const std::string& bundle,
                                   const Config& cfg, const std::string& what);

}  // namespace gnh
