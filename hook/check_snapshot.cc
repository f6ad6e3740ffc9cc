#include "check_snapshot.h"

#include "failure.h"

namespace gnh {

namespace {

std::string child_path(const std::string& parent, const std::string& name) {
  return parent == "/" ? "/" + name : parent + "/" + name;
}

}  // namespace

CpusetSnapshot snapshot_cpusets(const HostFs& fs, const CpusetTree& tree) {
  CpusetSnapshot snap;
  snap.version = tree.version();
  snap.mount_point = tree.mount_point();
  snap.cgroups.push_back({"/", -1, tree.root_mems(), true});
  // Pre-order with an explicit stack (nesting depth is the host's, not ours to bound by recursion):
  // a cgroup is read when popped, its children pushed in reverse so they come out in name order.
  struct Pending { std::string path; int parent; };
  std::vector<Pending> stack;
  auto push_children = [&](const std::string& path, int index) {
    auto names = fs.list_subdirs_beneath(tree.mount_point(), path);
    for (auto it = names.rbegin(); it != names.rend(); ++it) stack.push_back({child_path(path, *it), index});
  };
  push_children("/", 0);
  while (!stack.empty()) {
    Pending p = std::move(stack.back());
    stack.pop_back();
    auto text = fs.read_beneath(tree.mount_point(), p.path + "/" + tree.mems_file());
    if (!text && !tree.exists(p.path)) continue;  // removed under us: containers come and go
    if (!text && tree.version() == CgroupVersion::v1)
      fail(tree.display(p.path) + " has no cpuset.mems: is this a cpuset hierarchy?");
    CgroupRecord rec{p.path, p.parent, {}, text.has_value()};
    if (text) {
      std::string why;
      auto set = NodeSet::parse(*text, &why);
      if (!set) fail("cannot parse " + tree.display(p.path) + "/" + tree.mems_file() + ": " + why);
      rec.mems = *set;
    }
    snap.cgroups.push_back(std::move(rec));
    push_children(p.path, static_cast<int>(snap.cgroups.size() - 1));
  }
  return snap;
}

}  // namespace gnh
