// Which systemd unit owns a cgroup v2 directory, and AllowedMemoryNodes= in the form systemd's
// D-Bus API takes it. Pure: a cgroup path in, a unit name out.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/node_set.h"

namespace gnh {

// The unit of a cgroup path relative to the v2 root ("/system.slice/runc-c1.scope" ->
// "runc-c1.scope"): its last component when that is a unit systemd creates cgroups for (a
// *.scope, *.slice or *.service). nullopt for anything else: a container's own sub-cgroup below a
// delegated scope, a cgroupfs-driver path ("/docker/c1"), the root. Only characters systemd allows
// in unit names pass (letters, digits, ":-_.\\"), at most 255 bytes.
std::optional<std::string> systemd_unit_of_cgroup(std::string_view cgroup_path);

// AllowedMemoryNodes= as D-Bus "ay": bit n of byte n/8 is node n, no trailing zero bytes (what
// runc's RangeToBits sends for `runc update` and systemd's cpu_set_from_dbus() reads back).
// Empty for an empty set: systemd reads that as "no restriction", never sent by us.
std::vector<unsigned char> allowed_nodes_bitmask(const NodeSet& nodes);

// One SetUnitProperties(AllowedMemoryNodes) made after a cpuset write, and its answer.
struct UnitUpdate {
  std::string unit;   // "runc-c1.scope"
  NodeSet nodes;      // the AllowedMemoryNodes= sent: the value written to its cpuset.mems
  std::string error;  // "" when systemd accepted it
  // Not sent: this systemd has no AllowedMemoryNodes= (allowed_nodes_probe.h).
  bool unsupported = false;
};

// For the hook's log line: " (systemd AllowedMemoryNodes: runc-c1.scope=0-1)", and for each call
// that failed what failed and the command an operator runs instead; `failed` is set then. A unit
// whose systemd lacks the property is named as such, with no command: none would work there.
std::string describe_unit_updates(const std::vector<UnitUpdate>& updates, bool* failed);

}  // namespace gnh
