// The few D-Bus messages the hook sends systemd, marshalled by hand (little-endian, protocol
// version 1), and the reply read back: a statically linked hook cannot load libsystemd, and one
// method call needs no library. Pure: bytes in, bytes out; the socket is host/systemd/systemd_bus.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gnh {

// org.freedesktop.DBus.Hello, the first call on a message bus (not on systemd's private socket).
std::vector<unsigned char> dbus_hello_call(uint32_t serial);

// org.freedesktop.systemd1.Manager.SetUnitProperties(unit, runtime, [("AllowedMemoryNodes", <ay>)]),
// as `systemctl set-property --runtime UNIT AllowedMemoryNodes=...` and runc's `update` send it.
std::vector<unsigned char> dbus_set_allowed_memory_nodes_call(uint32_t serial, const std::string& unit, bool runtime,
                                                             const std::vector<unsigned char>& bitmask);

// org.freedesktop.DBus.Properties.Get(interface, property) on `path` of systemd: whether a unit
// has a property at all (an UnknownProperty error when its systemd lacks it).
std::vector<unsigned char> dbus_get_property_call(uint32_t serial, const std::string& path, const std::string& interface,
                                                  const std::string& property);

// The size of the whole message whose first 16 bytes are `head` (fixed header), or nullopt when
// the header is not a little- or big-endian D-Bus message we can read or claims more than `limit`.
std::optional<size_t> dbus_message_size(const unsigned char* head, size_t limit);

struct DbusReply {
  uint8_t type = 0;              // 2 method return, 3 error, 4 signal
  uint32_t reply_serial = 0;     // 0 when the header has none
  std::string error_name;        // for errors
  std::string error_message;     // an error's first body argument, when it is a string
};

// Reads the header fields of one whole message (dbus_message_size() bytes). nullopt when it is
// malformed; never reads past `bytes`.
std::optional<DbusReply> parse_dbus_reply(const std::vector<unsigned char>& bytes);

// SASL: the line that authenticates as `uid` with EXTERNAL ("AUTH EXTERNAL 30\r\n" for 0), after the
// leading NUL byte the caller sends first.
std::string dbus_auth_external_line(unsigned uid);

}  // namespace gnh
