// Whether the systemd that owns the cgroups has AllowedMemoryNodes=, asked of the unit itself.
// Upstream added the property, and cpuset management with it, in systemd 244; below that systemd
// never writes cpuset.mems, so a daemon-reload cannot undo the hook's write and there is nothing
// to tell it. A version number cannot decide this: RHEL 8's systemd 239 has the property
// backported, and systemd 252 leaves Properties.Get of the Manager's Version unanswered on its
// private socket (seen in the systemd VM test). So the unit's own property is read first
// (org.freedesktop.DBus.Properties.Get): UnknownProperty means the property is not there.
// Pure: names and text; the bus is host/systemd/systemd_bus.h.
#pragma once

#include <string>
#include <string_view>

namespace gnh {

// The error systemd (sd-bus) answers a Get of a property the object does not have.
inline constexpr char kUnknownPropertyError[] = "org.freedesktop.DBus.Error.UnknownProperty";

// The D-Bus object of a unit, as sd_bus_path_encode() spells it ("runc-c1.scope" ->
// "/org/freedesktop/systemd1/unit/runc_2dc1_2escope") and the interface that carries its cgroup
// properties ("org.freedesktop.systemd1.Scope"; Slice, Service).
std::string unit_object_path(std::string_view unit);
std::string unit_interface(std::string_view unit);

// What the log and `check` say for a unit not told because its systemd has no AllowedMemoryNodes=.
std::string no_allowed_memory_nodes_text(const std::string& unit);

}  // namespace gnh
