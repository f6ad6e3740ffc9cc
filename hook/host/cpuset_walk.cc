#include "host/cpuset_walk.h"

#include <cerrno>

#include "base/error.h"

namespace gnh {

CpusetSnapshot snapshot_cpusets(const CpusetTree& tree) {
  CpusetSnapshot snap;
  snap.version = tree.version();
  snap.mount_point = tree.mount_point();
  snap.cgroups.push_back({"/", -1, tree.root_mems(), true});
  // Pre-order with an explicit stack (nesting depth is the host's, not ours to bound by recursion):
  // a cgroup is read when popped, its children pushed in reverse so they come out in name order.
  struct Pending { std::string path; int parent; };
  std::vector<Pending> stack;
  auto push_children = [&](const std::string& path, int index) {
    auto children = tree.children(path);
    if (!children) return false;  // removed under us
    for (auto it = children->rbegin(); it != children->rend(); ++it) stack.push_back({std::move(*it), index});
    return true;
  };
  if (!push_children("/", 0)) fail("cannot list " + tree.mount_point() + ": it does not exist", ENOENT);
  while (!stack.empty()) {
    Pending p = std::move(stack.back());
    stack.pop_back();
    auto mems = tree.read_configured(p.path);
    if (!mems && !tree.exists(p.path)) continue;  // removed under us: containers come and go
    if (!mems && tree.version() == CgroupVersion::v1)
      fail(tree.display(p.path) + " has no " + tree.mems_file() + ": is this a cpuset hierarchy?", ENOENT);
    snap.cgroups.push_back({p.path, p.parent, mems.value_or(NodeSet()), mems.has_value()});
    if (!push_children(p.path, static_cast<int>(snap.cgroups.size() - 1))) snap.cgroups.pop_back();
  }
  return snap;
}

}  // namespace gnh
