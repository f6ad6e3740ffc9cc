#include "host/cgroup/cpuset_tree.h"

#include <algorithm>
#include <cerrno>

#include "base/error.h"

namespace gnh {

CpusetTree::CpusetTree(const HostFs& fs, const CpusetLocation& where)
    : fs_(fs), version_(where.version), mount_point_(where.mount_point), noprefix_(where.noprefix) {}

std::string CpusetTree::file_in(std::string_view path, const char* file) {
  std::string r(path);
  if (r.empty() || r.back() != '/') r += '/';
  r += file;
  return r;
}

const char* CpusetTree::mems_file() const { return noprefix_ ? "mems" : "cpuset.mems"; }

const char* CpusetTree::effective_file() const {
  if (version_ == CgroupVersion::v2) return "cpuset.mems.effective";
  return noprefix_ ? "effective_mems" : "cpuset.effective_mems";
}

std::string CpusetTree::display(std::string_view path) const {
  return path == "/" ? mount_point_ : mount_point_ + std::string(path);
}

bool CpusetTree::exists(std::string_view path) const { return fs_.dir_exists_beneath(mount_point_, path); }

std::optional<NodeSet> CpusetTree::read_set(std::string_view path, const char* file) const {
  // A cgroup control file holds one record: ReadEnd::at_short_read saves the read that returns 0.
  auto text = fs_.read_beneath(mount_point_, file_in(path, file), 64 * 1024, ReadEnd::at_short_read);
  if (!text) return std::nullopt;
  std::string why;
  auto set = NodeSet::parse(*text, &why);
  if (!set) fail("cannot parse " + display(path) + "/" + file + ": " + why, EINVAL);
  return *set;
}

std::optional<NodeSet> CpusetTree::read_configured(std::string_view path) const { return read_set(path, mems_file()); }

CpusetMems CpusetTree::read(std::string_view path) const {
  CpusetMems m;
  // The directory is checked only when its file could not be read: a file read proves the cgroup
  // is there, and the usual start is spared an open. A directory at fault (a symlink, another
  // mount) is named as the directory, as before the read.
  std::optional<NodeSet> configured;
  try {
    configured = read_set(path, mems_file());
  } catch (const Error&) {
    (void)exists(path);
    throw;
  }
  if (!configured && !exists(path)) fail("cgroup " + display(path) + " does not exist (did the container exit?)", ENOENT);
  m.configured = configured.value_or(NodeSet());
  m.has_files = configured.has_value();
  auto effective = read_set(path, effective_file());
  if (version_ == CgroupVersion::v1) {
    if (!configured) fail(display(path) + " has no " + mems_file() + ": is this a cpuset hierarchy?", ENOENT);
    // Kernels before 4.x lack effective_mems outside cpuset_v2_mode; mems is then the effective value.
    m.effective = effective.value_or(m.configured);
    return m;
  }
  if (effective) {
    m.effective = *effective;
    return m;
  }
  // No effective file (a captured or fixture tree; real v2 kernels always have one where cpuset is
  // enabled): derive it by the kernel's rule.
  if (path == "/" || path.empty()) fail("cannot read " + display("/") + "/" + effective_file(), ENOENT);
  m.effective = v2_effective_mems(m.configured, m.has_files, read(cgroup_parent(path)).effective);
  return m;
}

NodeSet CpusetTree::root_mems() const {
  auto s = read_set("/", version_ == CgroupVersion::v1 ? mems_file() : effective_file());
  if (!s) fail("cannot read the root cpuset at " + mount_point_, ENOENT);
  return *s;
}

std::optional<std::vector<std::string>> CpusetTree::children(std::string_view path) const {
  auto names = fs_.list_subdirs_beneath(mount_point_, path);
  if (!names) return std::nullopt;
  std::vector<std::string> out;
  out.reserve(names->size());
  for (auto& name : *names) out.push_back(path == "/" ? "/" + name : std::string(path) + "/" + name);
  return out;
}

long CpusetTree::task_count(std::string_view path) const {
  try {
    auto text = fs_.read_beneath(mount_point_, file_in(path, version_ == CgroupVersion::v1 ? "tasks" : "cgroup.threads"),
                                 16 * 1024 * 1024);
    if (!text) return -1;
    return static_cast<long>(std::count(text->begin(), text->end(), '\n'));
  } catch (const Error&) {
    return -1;  // a count for the report only: an unreadable one is shown as unknown
  }
}

}  // namespace gnh
