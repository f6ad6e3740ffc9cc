// The whole cpuset hierarchy read once, for `check`: every cgroup's configured cpuset.mems in
// pre-order (parents before children). Reading is the only I/O; what is wrong with it is decided
// by the pure functions in check_findings.h.
#pragma once

#include <string>
#include <vector>

#include "cgroup_location.h"
#include "cpuset_tree.h"
#include "host_cgroups.h"
#include "host_fs.h"
#include "node_set.h"

namespace gnh {

struct CgroupRecord {
  std::string path;      // "/" for the root, "/docker/3f2a" below it
  int parent = -1;       // index in CpusetSnapshot::cgroups; -1 for the root
  NodeSet mems;          // cpuset.mems (root: v1 cpuset.mems, v2 cpuset.mems.effective)
  bool has_mems = true;  // v2: false where the cpuset controller is not enabled (no cpuset.mems file)
};

struct CpusetSnapshot {
  CgroupVersion version = CgroupVersion::v1;
  std::string mount_point;
  std::vector<CgroupRecord> cgroups;  // [0] is the root; every parent precedes its children
};

// Walks every directory beneath the mount. Failure naming the file for an unreadable or
// malformed cpuset.mems; a cgroup removed while we walk is skipped (containers come and go).
CpusetSnapshot snapshot_cpusets(const HostFs& fs, const CpusetTree& tree);

}  // namespace gnh
