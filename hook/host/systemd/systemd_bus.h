// One call to systemd over D-Bus, without libsystemd: connect (systemd's private socket, else the
// system bus), AUTH EXTERNAL, one method call, its reply. Every read is bounded and the whole
// exchange ends by the deadline. Uses only socket(AF_UNIX), connect, sendto, read and poll, which
// the hook's sandbox already allows (docs/internals/sandbox.md).
#pragma once

#include <string>

#include "base/node_set.h"
#include "host/fs/deadline.h"
#include "host/fs/host_fs.h"

namespace gnh {

struct AllowedNodesAnswer {
  // "" when systemd took it (or was not asked, below); else what went wrong, for the operator
  // ("connect /run/dbus/system_bus_socket: ENOENT", "org.freedesktop.systemd1.NoSuchUnit: ...").
  std::string error;
  // This systemd has no AllowedMemoryNodes= (allowed_nodes_probe.h): nothing was sent.
  bool unsupported = false;
};

// SetUnitProperties(unit, runtime=true, AllowedMemoryNodes=nodes), on one connection after asking
// the unit whether it has the property at all.
AllowedNodesAnswer set_unit_allowed_memory_nodes(const HostFs& fs, const std::string& unit, const NodeSet& nodes,
                                                 const Deadline& deadline);

}  // namespace gnh
