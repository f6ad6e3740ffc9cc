// Whether the systemd that owns the cgroups has AllowedMemoryNodes=, decided from what it says
// over D-Bus. Upstream added the property, and cpuset management with it, in systemd 244; below
// that systemd never writes cpuset.mems, so a daemon-reload cannot undo the hook's write and there
// is nothing to tell it. Distributions backport it, though (RHEL 8's systemd 239 has it on
// cgroup v2): below 244 the unit is asked whether it has the property before anything is sent.
// Pure: strings in, a decision and text out; the bus is host/systemd/systemd_bus.h.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gnh {

inline constexpr int kAllowedMemoryNodesSince = 244;

// The leading number of the Manager's Version property: "239 (239-58.el8)" (RHEL 8), "v243.5-1.fc31"
// (Fedora 31), "252.22-1~deb12u1" (Debian 12) -> 239, 243, 252. nullopt when it starts otherwise
// (systemd does not promise a format).
std::optional<int> parse_systemd_version(std::string_view version);

enum class AllowedNodesSupport {
  yes,       // 244 or later: send SetUnitProperties
  ask_unit,  // older or unknown: read the unit's AllowedMemoryNodes first; unknown property = no
};
AllowedNodesSupport allowed_nodes_support(std::optional<int> version);

// The D-Bus object of a unit, as sd_bus_path_encode() spells it ("runc-c1.scope" ->
// "/org/freedesktop/systemd1/unit/runc_2dc1_2escope") and the interface that carries its cgroup
// properties ("org.freedesktop.systemd1.Scope"; Slice, Service).
std::string unit_object_path(std::string_view unit);
std::string unit_interface(std::string_view unit);

// What the log and `check` say for a unit not told because its systemd has no
// AllowedMemoryNodes=; `version` as systemd reported it, "" when unknown.
std::string no_allowed_memory_nodes_text(const std::string& unit, const std::string& version);

}  // namespace gnh
