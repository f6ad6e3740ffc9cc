#include "patcher.h"

#include "failure.h"
#include "lock_file.h"

namespace gnh {

std::vector<CgroupMemsSnapshot> read_chain(const CpusetTree& tree, const std::string& cgroup_path) {
  std::vector<CgroupMemsSnapshot> chain;
  for (const auto& p : cgroup_chain(cgroup_path)) {
    CpusetMems m = tree.read(p);
    chain.push_back({p, m.configured, m.has_files});
  }
  return chain;
}

PatchOutcome apply_patch(const CpusetTree& tree, const std::string& cgroup_path, const NodeSet& add,
                         const std::string& lock_path, const Deadline& deadline) {
  PatchOutcome out;
  try {
    LockFile lock(lock_path, deadline);
    out.locked = true;
    auto plan = plan_patch(tree.version(), read_chain(tree, cgroup_path), add);
    for (const auto& step : plan) {
      if (step.path == "/" || step.path.empty()) continue;  // the root is the kernel's to manage
      if (deadline.expired()) fail("deadline passed before writing " + tree.display(step.path) + "/cpuset.mems");
      int err = tree.write_mems(step.path, step.after);
      if (err != 0)
        fail("cannot write '" + step.after.to_string() + "' to " + tree.display(step.path) + "/cpuset.mems: " +
             errno_text(err));
      NodeSet now = tree.read(step.path).configured;
      if (!step.after.is_subset_of(now))
        fail("wrote '" + step.after.to_string() + "' to " + tree.display(step.path) + "/cpuset.mems but it reads back '" +
             now.to_string() + "'");
      out.steps.push_back(step);
    }
    out.effective_after = tree.read(cgroup_path).effective;
    if (!add.is_subset_of(out.effective_after))
      fail("after patching, " + tree.display(cgroup_path) + " still allows only " + out.effective_after.to_display());
    out.ok = true;
  } catch (const Failure& f) {
    out.error = f.what();
  }
  return out;
}

}  // namespace gnh
