#include "cpuset_tree.h"

#include <algorithm>

#include "failure.h"

namespace gnh {

namespace {
std::string rel(std::string_view path, const char* file) {
  std::string r(path);
  if (r.empty() || r.back() != '/') r += '/';
  r += file;
  return r;
}
}  // namespace

CpusetTree::CpusetTree(const HostFs& fs, CgroupVersion version, std::string mount_point)
    : fs_(fs), version_(version), mount_point_(std::move(mount_point)) {}

const char* CpusetTree::effective_file() const {
  return version_ == CgroupVersion::v1 ? "cpuset.effective_mems" : "cpuset.mems.effective";
}

std::string CpusetTree::display(std::string_view path) const {
  return path == "/" ? mount_point_ : mount_point_ + std::string(path);
}

bool CpusetTree::exists(std::string_view path) const { return fs_.dir_exists_beneath(mount_point_, path); }

NodeSet CpusetTree::read_set(std::string_view path, const char* file, bool* present) const {
  auto text = fs_.read_beneath(mount_point_, rel(path, file));
  *present = text.has_value();
  if (!text) return {};
  std::string why;
  auto set = NodeSet::parse(*text, &why);
  if (!set) fail("cannot parse " + display(path) + "/" + file + ": " + why);
  return *set;
}

CpusetMems CpusetTree::read(std::string_view path) const {
  if (!exists(path)) fail("cgroup " + display(path) + " does not exist (did the container exit?)");
  CpusetMems m;
  bool present = false;
  m.configured = read_set(path, mems_file(), &present);
  m.has_files = present;
  bool eff_present = false;
  m.effective = read_set(path, effective_file(), &eff_present);
  if (version_ == CgroupVersion::v1) {
    if (!present) fail(display(path) + " has no cpuset.mems: is this a cpuset hierarchy?");
    // Kernels before 4.x lack effective_mems outside cpuset_v2_mode; mems is then the effective value.
    if (!eff_present) m.effective = m.configured;
    return m;
  }
  if (eff_present) return m;
  // No effective file (a captured or fixture tree; real v2 kernels always have one where cpuset is
  // enabled): derive it by the kernel's rule, configured & parent's effective, else the parent's.
  if (path == "/" || path.empty()) fail("cannot read " + display("/") + "/" + effective_file());
  NodeSet parent = read(cgroup_parent(path)).effective;
  NodeSet mine = m.configured & parent;
  m.effective = (m.has_files && !mine.empty()) ? mine : parent;
  return m;
}

NodeSet CpusetTree::root_mems() const {
  bool present = false;
  NodeSet s = read_set("/", version_ == CgroupVersion::v1 ? mems_file() : effective_file(), &present);
  if (!present) fail("cannot read the root cpuset at " + mount_point_);
  return s;
}

int CpusetTree::write_mems(std::string_view path, const NodeSet& mems) const {
  return fs_.write_beneath(mount_point_, rel(path, mems_file()), mems.to_string());
}

std::vector<std::string> CpusetTree::children(std::string_view path) const {
  std::vector<std::string> out;
  for (auto& name : fs_.list_subdirs_beneath(mount_point_, path))
    out.push_back(path == "/" ? "/" + name : std::string(path) + "/" + name);
  return out;
}

long CpusetTree::task_count(std::string_view path) const {
  auto text = fs_.read_beneath(mount_point_, rel(path, version_ == CgroupVersion::v1 ? "tasks" : "cgroup.threads"),
                               16 * 1024 * 1024);
  if (!text) return -1;
  return static_cast<long>(std::count(text->begin(), text->end(), '\n'));
}

}  // namespace gnh
