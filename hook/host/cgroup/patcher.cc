#include "host/cgroup/patcher.h"

#include "base/error.h"
#include "host/cgroup/cpuset_writer.h"
#include "host/fs/lock_file.h"

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
                         const std::string& lock_path, const Deadline& deadline, const NodeSet& arrives_later) {
  PatchOutcome out;
  try {
    LockFile lock(lock_path, deadline);
    out.locked = true;
    // Planned from the chain as it is under the lock. If the kernel offlines another node between
    // our read and our write, the write of the old value fails (EINVAL): read and plan once more
    // rather than refuse a start that a retry serves (found by the spin model, tests/model).
    for (int attempt = 1;; ++attempt) {
      try {
        for (const auto& step : plan_patch(tree.version(), read_chain(tree, cgroup_path), add)) {
          if (deadline.expired()) fail("deadline passed before writing " + tree.display(step.path) + "/" + tree.mems_file());
          write_mems_verified(tree, step);
          out.steps.push_back(step);
        }
        break;
      } catch (const Error& e) {
        if (attempt > 1 || !worth_replanning(e)) throw;
      }
    }
    out.effective_after = tree.read(cgroup_path).effective;
    if (!(add - arrives_later).is_subset_of(out.effective_after))
      fail("after patching, " + tree.display(cgroup_path) + " still allows only " + out.effective_after.to_display());
    out.ok = true;
  } catch (const Error& f) {
    out.error = f.what();
  }
  return out;
}

}  // namespace gnh
