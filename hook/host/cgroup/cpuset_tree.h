// Reads cpuset.mems in one cgroup hierarchy (v1 cpuset, with or without the "cpuset." prefix, or v2
// unified), through HostFs and strictly beneath the hierarchy's mount. Writing is cpuset_writer.h's.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/node_set.h"
#include "cgroup/cgroup_location.h"
#include "cgroup/cpuset_mems.h"
#include "host/fs/host_fs.h"

namespace gnh {

class CpusetTree {
 public:
  // The hierarchy of `where` (its version, mount and file naming); its path is not used.
  CpusetTree(const HostFs& fs, const CpusetLocation& where);

  CgroupVersion version() const { return version_; }
  const std::string& mount_point() const { return mount_point_; }
  std::string display(std::string_view path) const;  // the full path an operator can cat

  // False only when the cgroup is absent; any other error is a Failure.
  bool exists(std::string_view path) const;
  // Failure (naming the file, errno kept: ENOENT when the cgroup is gone) when a file is unreadable
  // or malformed. On v2 a cgroup without cpuset files takes its effective mems from the nearest
  // ancestor that has them.
  CpusetMems read(std::string_view path) const;
  // cpuset.mems alone; nullopt when the file is absent (v2 without the cpuset controller, or the
  // cgroup gone). Failure when unreadable or malformed.
  std::optional<NodeSet> read_configured(std::string_view path) const;
  // The configured mems of the hierarchy's root (v2: its effective mems).
  NodeSet root_mems() const;

  // Child cgroups' paths in name order; nullopt when `path` is gone; Failure when it cannot be
  // listed (a subtree we cannot read must not look empty).
  std::optional<std::vector<std::string>> children(std::string_view path) const;
  // Number of tasks (v1 "tasks", v2 "cgroup.threads"); -1 when unreadable.
  long task_count(std::string_view path) const;

  const char* mems_file() const;
  const char* effective_file() const;
  // "<path>/<file>" relative to the mount, for HostFs.
  static std::string file_in(std::string_view path, const char* file);
  const HostFs& fs() const { return fs_; }

 private:
  std::optional<NodeSet> read_set(std::string_view path, const char* file) const;
  const HostFs& fs_;
  CgroupVersion version_;
  std::string mount_point_;
  bool noprefix_;
};

}  // namespace gnh
