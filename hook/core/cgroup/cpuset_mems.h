// One cgroup's memory nodes as the kernel shows them, and the kernel's rule for v2's effective
// mems. Plain data and one pure rule.
#pragma once

#include "base/node_set.h"

namespace gnh {

struct CpusetMems {
  NodeSet configured;      // cpuset.mems (v2: empty = inherit from the parent)
  NodeSet effective;       // v1 cpuset.effective_mems, v2 cpuset.mems.effective
  bool has_files = true;   // v2: false when the cpuset controller is not enabled for this cgroup
};

// cgroup v2 (kernel/cgroup/cpuset.c): a cgroup's effective mems are its configured mems within its
// parent's effective mems; when that is empty (nothing configured, no cpuset files, or no overlap)
// it has its parent's.
inline NodeSet v2_effective_mems(const NodeSet& configured, bool has_files, const NodeSet& parent_effective) {
  NodeSet mine = configured & parent_effective;
  return (has_files && !mine.empty()) ? mine : parent_effective;
}

}  // namespace gnh
