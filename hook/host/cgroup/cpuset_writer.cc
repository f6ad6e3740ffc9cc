#include "host/cgroup/cpuset_writer.h"

#include <cerrno>

#include "base/error.h"

namespace gnh {

NodeSet write_mems_verified(const CpusetTree& tree, const PatchStep& step) {
  std::string file = tree.display(step.path) + "/" + tree.mems_file();
  if (step.path == "/" || step.path.empty()) fail("refusing to write the root cpuset " + file, EPERM);
  if (!step.before.is_subset_of(step.after))
    fail("refusing to write '" + step.after.to_string() + "' to " + file + ": it would remove nodes of '" +
             step.before.to_string() + "'",
         EPERM);
  try {
    tree.fs().write_beneath(tree.mount_point(), CpusetTree::file_in(step.path, tree.mems_file()), step.after.to_string());
  } catch (const Error& e) {
    // Named as the operator sees the file (the hierarchy's host path), with the kernel's errno.
    fail_errno("cannot write '" + step.after.to_string() + "' to " + file, e.error_number());
  }
  auto now = tree.read_configured(step.path);
  if (!now) fail("wrote '" + step.after.to_string() + "' to " + file + " but it is gone now", ENOENT);
  // Only what we added must read back: the kernel may take an unrelated node away meanwhile
  // (memory offlined), and that is not our write failing.
  NodeSet added = step.after - step.before;
  if (!added.is_subset_of(*now))
    fail("wrote '" + step.after.to_string() + "' to " + file + " but it reads back '" + now->to_string() + "'", EIO);
  return *now;
}

bool worth_replanning(const Error& e) { return e.error_number() == EINVAL || e.error_number() == EIO; }

}  // namespace gnh
