// Where this host's cpusets live, read through HostFs: /proc/self/mountinfo and /proc/<pid>/cgroup
// fed to the pure choices in cgroup_location.h. Shared by the hook, explain, check and wait.
#pragma once

#include <string>
#include <vector>

#include "cgroup/cgroup_location.h"
#include "host/fs/host_fs.h"

namespace gnh {

// The cgroup and cgroup2 mounts of /proc/self/mountinfo (every line checked for its shape).
std::vector<MountInfoLine> read_cgroup_mounts(const HostFs& fs);

// The cgroup `path` ("/" for the root) in the hierarchy that holds cpuset: the v1 cgroup mount with
// the cpuset option (hybrid hosts keep cpuset there), else the cgroup2 mount. `mountinfo`: the
// table to read under fs's root; a container that mounts the node's / reads the node's init's,
// /proc/1/mountinfo (its own /proc/self would list its own mounts).
CpusetLocation locate_cpuset_hierarchy(const HostFs& fs, const std::string& path = "/",
                                       const std::string& mountinfo = "/proc/self/mountinfo");

// The cpuset of a running process, from /proc/<pid>/cgroup.
CpusetLocation locate_process_cpuset(const HostFs& fs, int pid);

}  // namespace gnh
