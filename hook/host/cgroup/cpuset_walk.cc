#include "host/cgroup/cpuset_walk.h"

#include <algorithm>
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

CheckFindings find_problems_walking(const CpusetTree& tree, const HostNodes& nodes) {
  const HostFs& fs = tree.fs();
  const std::string& mount = tree.mount_point();
  const bool v1 = tree.version() == CgroupVersion::v1;
  const char* mems_file = tree.mems_file();
  FindingsBuilder found(tree.version(), mount, tree.root_mems(), nodes);
  auto root = fs.open_dir_beneath(mount, "/");
  std::vector<std::string> names;
  if (!root || !root->subdirs(&names, mount)) fail("cannot list " + mount + ": it does not exist", ENOENT);
  std::sort(names.begin(), names.end());

  // `disp` is the mount point and the cgroup path after it ("/sys/fs/cgroup/cpuset/docker/3f2a"):
  // errors name it, and the path part is what the findings keep.
  std::string disp = mount, text;
  struct Level {
    BeneathDir dir;
    std::vector<std::string> children;  // sorted: the output's order
    size_t next;
    NodeSet fixed;                      // FindingsBuilder::add's reference for the children
    size_t disp_len;                    // disp's length at this cgroup
  };
  std::vector<Level> stack;
  stack.push_back({std::move(*root), std::move(names), 0, found.root_fixed(), disp.size()});
  while (!stack.empty()) {
    Level& top = stack.back();
    disp.resize(top.disp_len);
    if (top.next == top.children.size()) {
      stack.pop_back();
      continue;
    }
    const std::string& name = top.children[top.next++];
    auto dir = top.dir.subdir(name.c_str(), disp);
    if (!dir) continue;  // removed under us: containers come and go
    disp += '/';
    disp += name;
    bool has_mems = dir->read(mems_file, &text, disp);
    if (!has_mems) {
      if (!top.dir.subdir(name.c_str(), std::string_view(disp).substr(0, top.disp_len))) continue;  // removed
      if (v1) fail(disp + " has no " + mems_file + ": is this a cpuset hierarchy?", ENOENT);
    }
    NodeSet mems;
    if (has_mems) {
      std::string why;
      auto set = NodeSet::parse(text, &why);
      if (!set) fail("cannot parse " + disp + "/" + mems_file + ": " + why, EINVAL);
      mems = *set;
    }
    std::vector<std::string> kids;
    if (!dir->subdirs(&kids, disp)) continue;  // removed before we could list it: as if never seen
    std::sort(kids.begin(), kids.end());
    NodeSet fixed = found.add(std::string_view(disp).substr(mount.size()), top.fixed, mems, has_mems);
    stack.push_back({std::move(*dir), std::move(kids), 0, fixed, disp.size()});
  }
  return found.take();
}

}  // namespace gnh
