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
  if (!proc || !mounts) return 0;
  auto loc = gnh::locate_cpuset(*proc, *mounts, &why);
  if (!loc) return 0;
  if (loc->path.empty() || loc->path.front() != '/') __builtin_trap();
  if (!gnh::is_clean_relative_path(loc->path.substr(1))) __builtin_trap();
  for (const auto& p : gnh::cgroup_chain(loc->path))
    if (!gnh::is_clean_relative_path(p.substr(1))) __builtin_trap();
  return 0;
}
