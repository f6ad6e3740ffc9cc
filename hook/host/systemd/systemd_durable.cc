#include "host/systemd/systemd_durable.h"

#include <sys/stat.h>

#include "host/fs/lock_file.h"
#include "host/systemd/systemd_bus.h"
#include "systemd/systemd_unit.h"

namespace gnh {

bool systemd_owns_cgroups(const HostFs& fs, const CpusetLocation& loc) {
  if (loc.version != CgroupVersion::v2 || loc.mount_point != "/sys/fs/cgroup") return false;
  struct stat st;
  return ::stat(fs.resolve("/run/systemd/system").c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<UnitUpdate> tell_systemd(const HostFs& fs, const CpusetTree& tree, const std::vector<PatchStep>& written,
                                     const std::string& lock_path, const Deadline& deadline) {
  std::vector<UnitUpdate> out;
  for (const auto& step : written)
    if (auto unit = systemd_unit_of_cgroup(step.path)) out.push_back({*unit, step.after, "", false});
  if (out.empty()) return out;
  try {
    LockFile lock(lock_path, deadline);
    size_t i = 0;
    for (const auto& step : written) {
      if (!systemd_unit_of_cgroup(step.path)) continue;
      UnitUpdate& u = out[i++];
      try {
        if (auto now = tree.read_configured(step.path)) u.nodes = *now | step.after;
        AllowedNodesAnswer a = set_unit_allowed_memory_nodes(fs, u.unit, u.nodes, deadline);
        u.error = a.error;
        u.unsupported = a.unsupported;
      } catch (const std::exception& e) {
        u.error = e.what();
      }
    }
  } catch (const std::exception& e) {
    for (auto& u : out)
      if (u.error.empty()) u.error = e.what();  // the lock was not had: nothing was sent
  }
  return out;
}

}  // namespace gnh
