// Where this host's cpusets live, read through HostFs: /proc/self/mountinfo and /proc/<pid>/cgroup
// fed to the pure choices in cgroup_location.h. Shared by the hook, explain, check and wait.
#pragma once

#include <string>
#include <vector>

#include "cgroup/cgroup_location.h"
#include "host/fs/host_fs.h"

namespace gnh {

std::vector<MountInfoLine> read_host_mounts(const HostFs& fs);

// The cgroup `path` ("/" for the root) in the hierarchy that holds cpuset: the v1 cgroup mount with
// the cpuset option (hybrid hosts keep cpuset there), else the cgroup2 mount.
CpusetLocation locate_cpuset_hierarchy(const HostFs& fs, const std::string& path = "/");

// The cpuset of a running process, from /proc/<pid>/cgroup.
CpusetLocation locate_process_cpuset(const HostFs& fs, int pid);

}  // namespace gnh
