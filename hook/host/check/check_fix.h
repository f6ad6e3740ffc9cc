// `check --fix`: carries out plan_check_fix on the live hierarchy under the hook's lock, so a
// container starting meanwhile cannot interleave its own top-down writes with ours.
#pragma once

#include <string>
#include <vector>

#include "check/fix_outcome.h"
#include "host/cgroup/cpuset_tree.h"
#include "cgroup/patch_plan.h"

namespace gnh {

// `lock_path` is already resolved for this machine. Re-reads each cgroup under the lock (a hook
// may have healed it meanwhile) and adds only what the plan adds: nodes are never removed,
// directories never touched, the root never written. A cgroup gone meanwhile is skipped.
FixOutcome apply_check_fix(const CpusetTree& tree, const std::vector<PatchStep>& plan, const std::string& lock_path,
                           int lock_wait_ms);

}  // namespace gnh
