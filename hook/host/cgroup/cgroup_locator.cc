#include "host/cgroup/cgroup_locator.h"

#include "base/error.h"

namespace gnh {

std::vector<MountInfoLine> read_cgroup_mounts(const HostFs& fs, const std::string& mountinfo) {
  std::string why;
  auto mounts = parse_mountinfo(fs.read_required(mountinfo, 4 * 1024 * 1024), &why, MountFilter::cgroup);
  if (!mounts) fail("cannot parse " + fs.resolve(mountinfo) + ": " + why);
  return *mounts;
}

std::vector<MountInfoLine> read_cgroup_mounts(const HostFs& fs) { return read_cgroup_mounts(fs, "/proc/self/mountinfo"); }

CpusetLocation locate_cpuset_hierarchy(const HostFs& fs, const std::string& path, const std::string& mountinfo) {
  auto mounts = read_cgroup_mounts(fs, mountinfo);
  bool v1 = false;
  for (const auto& m : mounts)
    for (const auto& o : m.super_options)
      if (m.fstype == "cgroup" && o == "cpuset") v1 = true;
  // Ask locate_cpuset where a process in that cgroup of that hierarchy would be.
  std::vector<ProcCgroupLine> lines = {v1 ? ProcCgroupLine{1, {"cpuset"}, path} : ProcCgroupLine{0, {}, path}};
  std::string why;
  auto loc = locate_cpuset(lines, mounts, &why);
  if (!loc) fail("cannot find the cpuset hierarchy in " + fs.resolve(mountinfo) + ": " + why);
  return *loc;
}

CpusetLocation locate_process_cpuset(const HostFs& fs, int pid) {
  std::string file = "/proc/" + std::to_string(pid) + "/cgroup";
  // One record (single_open in the kernel): ReadEnd::at_short_read saves the read that returns 0.
  auto text = fs.read(file, 64 * 1024, ReadEnd::at_short_read);
  if (!text) fail("container process " + std::to_string(pid) + " does not exist (" + fs.resolve(file) + " is missing)");
  std::string why;
  auto lines = parse_proc_cgroup(*text, &why);
  if (!lines) fail("cannot parse " + fs.resolve(file) + ": " + why);
  auto loc = locate_cpuset(*lines, read_cgroup_mounts(fs), &why);
  if (!loc) fail("cannot find the cpuset of process " + std::to_string(pid) + ": " + why);
  return *loc;
}

}  // namespace gnh
