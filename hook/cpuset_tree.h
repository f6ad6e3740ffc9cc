// Reads and writes cpuset.mems in one cgroup hierarchy (v1 cpuset or v2 unified), through HostFs
// and strictly beneath the hierarchy's mount.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cgroup_location.h"
#include "host_fs.h"
#include "node_set.h"

namespace gnh {

struct CpusetMems {
  NodeSet configured;      // cpuset.mems (v2: empty = inherit from the parent)
  NodeSet effective;       // v1 cpuset.effective_mems, v2 cpuset.mems.effective
  bool has_files = true;   // v2: false when the cpuset controller is not enabled for this cgroup
};

class CpusetTree {
 public:
  CpusetTree(const HostFs& fs, CgroupVersion version, std::string mount_point);

  CgroupVersion version() const { return version_; }
  const std::string& mount_point() const { return mount_point_; }
  std::string display(std::string_view path) const;  // the full path an operator can cat

  bool exists(std::string_view path) const;
  // Failure (naming the file) when the cgroup is gone or a file is unreadable or malformed.
  // On v2 a cgroup without cpuset files takes its effective mems from the nearest ancestor that has them.
  CpusetMems read(std::string_view path) const;
  // The configured mems of the hierarchy's root (v2: its effective mems).
  NodeSet root_mems() const;
  // Writes cpuset.mems; 0 or the errno.
  int write_mems(std::string_view path, const NodeSet& mems) const;

  std::vector<std::string> children(std::string_view path) const;
  // Number of tasks (v1 "tasks", v2 "cgroup.threads"); -1 when unreadable.
  long task_count(std::string_view path) const;

  const char* mems_file() const { return "cpuset.mems"; }
  const char* effective_file() const;

 private:
  NodeSet read_set(std::string_view path, const char* file, bool* present) const;
  const HostFs& fs_;
  CgroupVersion version_;
  std::string mount_point_;
};

}  // namespace gnh
