// Tests only: D-Bus replies as systemd sends them, built byte by byte from the specification
// (little-endian), for the tests of the hook's D-Bus reader and of its conversation with a scripted
// systemd (tests/support/scripted_systemd.h). Beside dbus_message.h so every test target finds it.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <vector>

namespace dbus_replies {

inline void put(std::vector<unsigned char>& b, std::string_view s) { b.insert(b.end(), s.begin(), s.end()); }
inline void u32(std::vector<unsigned char>& b, uint32_t v) {
  while (b.size() % 4) b.push_back(0);
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<unsigned char>(v >> (8 * i)));
}
inline void pad8(std::vector<unsigned char>& b) {
  while (b.size() % 8) b.push_back(0);
}
inline void str(std::vector<unsigned char>& b, std::string_view s) {
  u32(b, static_cast<uint32_t>(s.size()));
  put(b, s);
  b.push_back(0);
}

// type 2 (method return) or 3 (error, named); body signature `sig` ("" for none), body bytes after.
inline std::vector<unsigned char> message(uint8_t type, uint32_t reply_serial, std::string_view error_name,
                                          std::string_view sig, const std::vector<unsigned char>& body) {
  std::vector<unsigned char> b = {'l', type, 1, 1};
  u32(b, static_cast<uint32_t>(body.size()));
  u32(b, 9);
  u32(b, 0);  // fields length, below
  if (!error_name.empty()) {
    b.insert(b.end(), {4, 1, 's', 0});
    str(b, error_name);
    pad8(b);
  }
  b.insert(b.end(), {5, 1, 'u', 0});
  u32(b, reply_serial);
  if (!sig.empty()) {
    pad8(b);
    b.insert(b.end(), {8, 1, 'g', 0, static_cast<unsigned char>(sig.size())});
    put(b, sig);
    b.push_back(0);
  }
  uint32_t fields = static_cast<uint32_t>(b.size() - 16);
  for (int i = 0; i < 4; ++i) b[12 + i] = static_cast<unsigned char>(fields >> (8 * i));
  pad8(b);
  b.insert(b.end(), body.begin(), body.end());
  return b;
}

inline std::vector<unsigned char> method_return(uint32_t reply_serial) { return message(2, reply_serial, "", "", {}); }

// An error with its message, as sd_bus_reply_method_errorf() sends it.
inline std::vector<unsigned char> error_reply(uint32_t reply_serial, std::string_view name, std::string_view text) {
  std::vector<unsigned char> body;
  str(body, text);
  return message(3, reply_serial, name, "s", body);
}

// The answer to Properties.Get of an "ay" property (AllowedMemoryNodes): one variant <ay bytes>.
// The body starts 8-aligned in the message, so offsets within it keep their alignment.
inline std::vector<unsigned char> byte_array_property_reply(uint32_t reply_serial, std::vector<unsigned char> bytes) {
  std::vector<unsigned char> body = {2, 'a', 'y', 0};
  u32(body, static_cast<uint32_t>(bytes.size()));
  body.insert(body.end(), bytes.begin(), bytes.end());
  return message(2, reply_serial, "", "v", body);
}

}  // namespace dbus_replies
