// `check --fix`: carries out plan_check_fix on the live hierarchy under the hook's lock, so a
// container starting meanwhile cannot interleave its own top-down writes with ours.
#pragma once

#include <string>
#include <vector>

#include "cpuset_tree.h"
#include "patch_plan.h"

namespace gnh {

struct FixResult {
  std::string path;
  NodeSet before;      // cpuset.mems read under the lock, just before writing
  NodeSet after;       // read back after writing (== before when nothing was needed)
  bool written = false;
  std::string error;   // not empty: this cgroup was not fixed (file, value, errno)
};

struct FixOutcome {
  std::vector<FixResult> results;  // one per planned step, in plan order
  std::string error;               // the fix did not run at all (the lock)

  size_t fixed() const;
  size_t failed() const;
};

// `lock_path` is already resolved for this machine. Re-reads each cgroup under the lock (a hook
// may have healed it meanwhile) and adds only what the plan adds: nodes are never removed,
// directories never touched, the root never written. A cgroup gone meanwhile is skipped.
FixOutcome apply_check_fix(const CpusetTree& tree, const std::vector<PatchStep>& plan, const std::string& lock_path,
                           int lock_wait_ms);

}  // namespace gnh
