// The whole cpuset hierarchy as `check` read it: every cgroup's configured cpuset.mems in
// pre-order (parents before children). Plain data: host/cgroup/cpuset_walk.h reads it, check/findings.h
// judges it.
#pragma once

#include <string>
#include <vector>

#include "base/node_set.h"
#include "cgroup/cgroup_location.h"

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

}  // namespace gnh
