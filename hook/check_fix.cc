#include "check_fix.h"

#include <algorithm>

#include "failure.h"
#include "lock_file.h"

namespace gnh {

size_t FixOutcome::fixed() const {
  return static_cast<size_t>(std::count_if(results.begin(), results.end(), [](const FixResult& r) { return r.written; }));
}

size_t FixOutcome::failed() const {
  return static_cast<size_t>(
      std::count_if(results.begin(), results.end(), [](const FixResult& r) { return !r.error.empty(); }));
}

namespace {

FixResult fix_one(const CpusetTree& tree, const PatchStep& planned) {
  FixResult r{planned.path, planned.before, planned.before, false, ""};
  if (planned.path == "/" || planned.path.empty() || !tree.exists(planned.path)) return r;
  CpusetMems now = tree.read(planned.path);
  r.before = r.after = now.configured;
  // The same rule as the hook's patch: widen by what was missing, never narrow.
  auto steps = plan_patch(tree.version(), {{planned.path, now.configured, now.has_files}}, planned.after - planned.before);
  if (steps.empty()) return r;
  const PatchStep& step = steps.front();
  int err = tree.write_mems(step.path, step.after);
  if (err != 0)
    fail("cannot write '" + step.after.to_string() + "' to " + tree.display(step.path) + "/cpuset.mems: " + errno_text(err));
  r.after = tree.read(step.path).configured;
  if (!step.after.is_subset_of(r.after))
    fail("wrote '" + step.after.to_string() + "' to " + tree.display(step.path) + "/cpuset.mems but it reads back '" +
         r.after.to_string() + "'");
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
        out.results.push_back(fix_one(tree, step));
      } catch (const Failure& f) {
        // Keep going: other branches of the tree can still be fixed; children of this one will
        // fail too (v1: a child must stay within its parent) and say so.
        out.results.push_back({step.path, step.before, step.before, false, f.what()});
      }
    }
  } catch (const Failure& f) {
    out.error = f.what();
  }
  return out;
}

}  // namespace gnh
