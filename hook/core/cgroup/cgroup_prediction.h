// linux.cgroupsPath -> the cgroup a runtime will create, for `explain` before a container runs.
// systemd form "slice:prefix:name" -> "<expanded slice>/<prefix>-<name>.scope"; cgroupfs form is a
// path. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gnh {

// "kubepods-burstable-pod1.slice" -> "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice"
std::string expand_systemd_slice(std::string_view slice);
// nullopt for an unusable value (relative path with "..", malformed systemd triple).
std::optional<std::string> cgroup_from_cgroups_path(std::string_view cgroups_path);

}  // namespace gnh
