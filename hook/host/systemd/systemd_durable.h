// Makes a cpuset patch durable where systemd owns the cgroup: the widened value also becomes the
// unit's AllowedMemoryNodes= (runtime only, as `runc update` does with the systemd driver), so a
// `systemctl daemon-reload` re-applies our value instead of the old one. docs/platforms/systemd.md.
#pragma once

#include <string>
#include <vector>

#include "cgroup/cgroup_location.h"
#include "cgroup/patch_plan.h"
#include "host/cgroup/cpuset_tree.h"
#include "host/fs/deadline.h"
#include "host/fs/host_fs.h"
#include "systemd/systemd_unit.h"

namespace gnh {

// systemd manages this hierarchy: cgroup v2 mounted at /sys/fs/cgroup and systemd running as the
// init system (/run/systemd/system is a directory, what sd_booted() checks). v1 cpusets and hosts
// without systemd keep the plain write.
bool systemd_owns_cgroups(const HostFs& fs, const CpusetLocation& loc);

// One SetUnitProperties per written step whose cgroup is a unit (a scope or slice); steps below a
// unit (a delegated subtree) are the unit's owner's and are skipped. Under the hook's lock, as the
// writes were: systemd writes the value it is given into the cgroup, so each unit is sent what its
// cgroup holds now joined with what we wrote (another start may have widened it further since; a
// stale value would take that node away). Never throws; never undoes a cgroup write.
std::vector<UnitUpdate> tell_systemd(const HostFs& fs, const CpusetTree& tree, const std::vector<PatchStep>& written,
                                     const std::string& lock_path, const Deadline& deadline);

}  // namespace gnh
