// Carries out a patch on the live hierarchy: under the lock, re-reads the chain (another start may
// have healed it meanwhile), writes top-down, reads each file back.
#pragma once

#include <string>
#include <vector>

#include "cpuset_tree.h"
#include "deadline.h"
#include "patch_plan.h"

namespace gnh {

struct PatchOutcome {
  bool ok = false;
  bool locked = false;           // false: the lock was not had (held past the deadline): a hook error, not the cgroup's
  std::vector<PatchStep> steps;  // the writes that were made and verified
  NodeSet effective_after;       // the container's effective mems at the end
  std::string error;             // when !ok: the file, the value and the errno
};

// `lock_path` is a host path already resolved for this machine. Never writes the root cgroup.
PatchOutcome apply_patch(const CpusetTree& tree, const std::string& cgroup_path, const NodeSet& add,
                         const std::string& lock_path, const Deadline& deadline);

// The top-down snapshots of the chain from the first cgroup below the root to `cgroup_path`.
std::vector<CgroupMemsSnapshot> read_chain(const CpusetTree& tree, const std::string& cgroup_path);

}  // namespace gnh
