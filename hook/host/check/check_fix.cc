#include "host/check/check_fix.h"

#include "base/error.h"
#include "host/cgroup/cpuset_writer.h"
#include "host/fs/lock_file.h"

namespace gnh {

namespace {

FixResult fix_one(const CpusetTree& tree, const PatchStep& planned) {
  FixResult r{planned.path, planned.before, planned.before, false, false, "", 0, {}};
  auto now = tree.read_configured(planned.path);
  if (!now) {
    r.removed = !tree.exists(planned.path);  // else v2 without cpuset files now: nothing to widen
    return r;
  }
  r.before = r.after = *now;
  // The same rule as the hook's patch: widen by what was missing, never narrow.
  auto steps = plan_patch(tree.version(), {{planned.path, *now, true}}, planned.after - planned.before);
  if (steps.empty()) return r;
  // A running task bound to a node (numactl, CUDA's allocator, numa_touch) would be moved to
  // another node by the kernel if the nodes it knows shift position: leave such a cgroup alone.
  // The hook's own patch never meets this: it widens a container's cgroup before its process runs.
  if (!widening_keeps_positions(*now, steps.front().after)) {
    if (long tasks = tree.task_count(planned.path); tasks != 0) {
      r.busy_tasks = tasks < 0 ? 1 : tasks;  // unknown counts as busy: the safe side
      r.planned = steps.front().after;
      return r;
    }
  }
  r.after = write_mems_verified(tree, steps.front());
  r.written = true;
  return r;
}

}  // namespace

FixOutcome apply_check_fix(const CpusetTree& tree, const std::vector<PatchStep>& plan, const std::string& lock_path,
                           int lock_wait_ms) {
  FixOutcome out;
  if (plan.empty()) return out;
  try {
    LockFile lock(lock_path, Deadline(std::chrono::milliseconds(lock_wait_ms)));
    for (const auto& step : plan) {
      try {
        try {
          out.results.push_back(fix_one(tree, step));
        } catch (const Error& e) {
          // As the hook's patch does: a node the kernel took offline meanwhile; re-read once.
          if (!worth_replanning(e)) throw;
          out.results.push_back(fix_one(tree, step));
        }
      } catch (const Error& e) {
        // Removed between our read and our write (ENOENT, or ENODEV from a dying cgroup): skipped,
        // as promised, not a failed fix.
        if ((e.is_absent() || e.error_number() == ENODEV) && !tree.exists(step.path)) {
          out.results.push_back({step.path, step.before, step.before, false, true, "", 0, {}});
          continue;
        }
        // Keep going: other branches of the tree can still be fixed; children of this one will
        // fail too (v1: a child must stay within its parent) and say so.
        out.results.push_back({step.path, step.before, step.before, false, false, e.what(), 0, {}});
      }
    }
  } catch (const Error& e) {
    out.error = e.what();
    out.lock_unusable = e.error_number() != 0;  // not had in time: errno 0
  }
  return out;
}

}  // namespace gnh
