#include "host/systemd_durable.h"

#include <sys/stat.h>

#include "host/systemd_bus.h"
#include "systemd/systemd_unit.h"

namespace gnh {

bool systemd_owns_cgroups(const HostFs& fs, const CpusetLocation& loc) {
  if (loc.version != CgroupVersion::v2 || loc.mount_point != "/sys/fs/cgroup") return false;
  struct stat st;
  return ::stat(fs.resolve("/run/systemd/system").c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<UnitUpdate> tell_systemd(const HostFs& fs, const std::vector<PatchStep>& written, const Deadline& deadline) {
  std::vector<UnitUpdate> out;
  for (const auto& step : written) {
    auto unit = systemd_unit_of_cgroup(step.path);
    if (!unit) continue;
    UnitUpdate u{*unit, step.after, ""};
    try {
      u.error = set_unit_allowed_memory_nodes(fs, *unit, step.after, deadline);
    } catch (const std::exception& e) {
      u.error = e.what();
    }
    out.push_back(u);
  }
  return out;
}

}  // namespace gnh
