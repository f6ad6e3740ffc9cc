// /proc/<pid>/cgroup (a container can name its own cgroups) and /proc/self/mountinfo, then the
// choice of hierarchy. Input: the two files separated by the first NUL byte. Whatever is located
// must be a clean absolute path: it is later joined to a mount point and written to.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cgroup/cgroup_location.h"
#include "base/relative_path.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view all(reinterpret_cast<const char*>(data), size);
  size_t nul = all.find('\0');
  std::string_view cgroup = all.substr(0, nul);
  std::string_view mountinfo = nul == std::string_view::npos ? std::string_view() : all.substr(nul + 1);
  std::string why;
  auto proc = gnh::parse_proc_cgroup(cgroup, &why);
  auto mounts = gnh::parse_mountinfo(mountinfo, &why);
  // The hook's cgroup-only reading: refused exactly when the whole file is, and its lines are the
  // whole file's cgroup and cgroup2 lines.
  auto cgroup_mounts = gnh::parse_mountinfo(mountinfo, &why, gnh::MountFilter::cgroup);
  if (mounts.has_value() != cgroup_mounts.has_value()) __builtin_trap();
  if (mounts) {
    size_t k = 0;
    for (const auto& m : *mounts) {
      if (m.fstype != "cgroup" && m.fstype != "cgroup2") continue;
      if (k >= cgroup_mounts->size() || (*cgroup_mounts)[k].mount_point != m.mount_point ||
          (*cgroup_mounts)[k].root != m.root || (*cgroup_mounts)[k].super_options != m.super_options)
        __builtin_trap();
      ++k;
    }
    if (k != cgroup_mounts->size()) __builtin_trap();
  }
  if (!proc || !mounts) return 0;
  auto loc = gnh::locate_cpuset(*proc, *mounts, &why);
  if (!loc) return 0;
  if (loc->path.empty() || loc->path.front() != '/') __builtin_trap();
  if (!gnh::is_clean_relative_path(loc->path.substr(1))) __builtin_trap();
  for (const auto& p : gnh::cgroup_chain(loc->path))
    if (!gnh::is_clean_relative_path(p.substr(1))) __builtin_trap();
  return 0;
}
