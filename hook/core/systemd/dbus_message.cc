#include "systemd/dbus_message.h"

#include <cstdio>

namespace gnh {

namespace {

// Little-endian writer with D-Bus alignment; offsets are from the message start, which keeps the
// body's alignment right too (the body starts 8-aligned).
class Writer {
 public:
  void pad(size_t n) {
    while (b_.size() % n) b_.push_back(0);
  }
  void u8(uint8_t v) { b_.push_back(v); }
  void u32(uint32_t v) {
    pad(4);
    for (int i = 0; i < 4; ++i) b_.push_back(static_cast<unsigned char>(v >> (8 * i)));
  }
  void put_u32_at(size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b_[at + i] = static_cast<unsigned char>(v >> (8 * i));
  }
  void str(std::string_view s) {  // 's' and 'o'
    u32(static_cast<uint32_t>(s.size()));
    b_.insert(b_.end(), s.begin(), s.end());
    b_.push_back(0);
  }
  void sig(std::string_view s) {  // 'g'
    u8(static_cast<uint8_t>(s.size()));
    b_.insert(b_.end(), s.begin(), s.end());
    b_.push_back(0);
  }
  // An array's length placeholder; returns {where the length goes, where the elements start}.
  std::pair<size_t, size_t> open_array(size_t element_alignment) {
    u32(0);
    size_t at = b_.size() - 4;
    pad(element_alignment);
    return {at, b_.size()};
  }
  void close_array(std::pair<size_t, size_t> a) { put_u32_at(a.first, static_cast<uint32_t>(b_.size() - a.second)); }
  size_t size() const { return b_.size(); }
  std::vector<unsigned char> take() { return std::move(b_); }

 private:
  std::vector<unsigned char> b_;
};

struct Header {
  const char* path;
  const char* interface;
  const char* member;
  const char* destination;
  const char* signature;  // "" for no body
};

enum : uint8_t { kPath = 1, kInterface = 2, kMember = 3, kErrorName = 4, kReplySerial = 5, kDestination = 6, kSignature = 8 };

// Writes the fixed header and the header fields; returns where the body length goes.
size_t write_header(Writer& w, const Header& h, uint32_t serial) {
  w.u8('l');  // little-endian
  w.u8(1);    // METHOD_CALL
  w.u8(0);    // flags: a reply is expected, auto-start allowed
  w.u8(1);    // protocol version
  w.u32(0);   // body length, filled in later
  w.u32(serial);
  auto fields = w.open_array(8);
  auto field = [&](uint8_t code, const char* type, const char* value) {
    w.pad(8);
    w.u8(code);
    w.sig(type);
    if (type[0] == 'g')
      w.sig(value);
    else
      w.str(value);
  };
  field(kPath, "o", h.path);
  field(kInterface, "s", h.interface);
  field(kMember, "s", h.member);
  field(kDestination, "s", h.destination);
  if (h.signature[0]) field(kSignature, "g", h.signature);
  w.close_array(fields);
  w.pad(8);
  return 4;
}

std::vector<unsigned char> finish(Writer& w, size_t body_len_at, size_t body_start) {
  w.put_u32_at(body_len_at, static_cast<uint32_t>(w.size() - body_start));
  return w.take();
}

// Reads D-Bus values of either byte order from a bounded buffer; every read is checked.
class Reader {
 public:
  Reader(const std::vector<unsigned char>& b, bool big) : b_(b), big_(big) {}
  bool pad(size_t n) {
    while (at_ % n) {
      if (at_ >= b_.size()) return false;
      ++at_;
    }
    return true;
  }
  bool u8(uint8_t* v) {
    if (at_ >= b_.size()) return false;
    *v = b_[at_++];
    return true;
  }
  bool u32(uint32_t* v) {
    if (!pad(4) || b_.size() - at_ < 4) return false;
    uint32_t r = 0;
    for (int i = 0; i < 4; ++i) r |= static_cast<uint32_t>(b_[at_ + i]) << (8 * (big_ ? 3 - i : i));
    at_ += 4;
    *v = r;
    return true;
  }
  bool bytes(size_t n, std::string* out) {
    if (b_.size() - at_ < n + 1 || b_[at_ + n] != 0) return false;  // the terminating NUL
    out->assign(reinterpret_cast<const char*>(&b_[at_]), n);
    at_ += n + 1;
    return true;
  }
  bool str(std::string* out) {
    uint32_t n = 0;
    return u32(&n) && n < b_.size() && bytes(n, out);
  }
  bool sig(std::string* out) {
    uint8_t n = 0;
    return u8(&n) && bytes(n, out);
  }
  size_t at() const { return at_; }
  void seek(size_t to) { at_ = to; }

 private:
  const std::vector<unsigned char>& b_;
  bool big_;
  size_t at_ = 0;
};

uint32_t read_u32(const unsigned char* p, bool big) {
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) r |= static_cast<uint32_t>(p[i]) << (8 * (big ? 3 - i : i));
  return r;
}

}  // namespace

std::vector<unsigned char> dbus_hello_call(uint32_t serial) {
  Writer w;
  size_t len_at = write_header(w, {"/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello", "org.freedesktop.DBus", ""},
                               serial);
  size_t body = w.size();
  return finish(w, len_at, body);
}

std::vector<unsigned char> dbus_set_allowed_memory_nodes_call(uint32_t serial, const std::string& unit, bool runtime,
                                                             const std::vector<unsigned char>& bitmask) {
  Writer w;
  size_t len_at = write_header(w,
                               {"/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", "SetUnitProperties",
                                "org.freedesktop.systemd1", "sba(sv)"},
                               serial);
  size_t body = w.size();
  w.str(unit);
  w.u32(runtime ? 1 : 0);  // 'b' is a 32-bit 0 or 1
  auto props = w.open_array(8);
  w.pad(8);
  w.str("AllowedMemoryNodes");
  w.sig("ay");
  auto ay = w.open_array(1);
  for (unsigned char c : bitmask) w.u8(c);
  w.close_array(ay);
  w.close_array(props);
  return finish(w, len_at, body);
}

std::vector<unsigned char> dbus_get_property_call(uint32_t serial, const std::string& path, const std::string& interface,
                                                  const std::string& property) {
  Writer w;
  size_t len_at = write_header(
      w, {path.c_str(), "org.freedesktop.DBus.Properties", "Get", "org.freedesktop.systemd1", "ss"}, serial);
  size_t body = w.size();
  w.str(interface);
  w.str(property);
  return finish(w, len_at, body);
}

std::optional<size_t> dbus_message_size(const unsigned char* head, size_t limit) {
  bool big = head[0] == 'B';
  if ((head[0] != 'l' && !big) || head[3] != 1) return std::nullopt;
  uint64_t body = read_u32(head + 4, big);
  uint64_t fields = read_u32(head + 12, big);
  uint64_t header = (16 + fields + 7) / 8 * 8;
  uint64_t total = header + body;
  if (total > limit) return std::nullopt;
  return static_cast<size_t>(total);
}

std::optional<DbusReply> parse_dbus_reply(const std::vector<unsigned char>& bytes) {
  if (bytes.size() < 16) return std::nullopt;
  auto size = dbus_message_size(bytes.data(), bytes.size());
  if (!size || *size != bytes.size()) return std::nullopt;
  bool big = bytes[0] == 'B';
  DbusReply r;
  r.type = bytes[1];
  size_t fields_end = 16 + read_u32(&bytes[12], big);
  Reader in(bytes, big);
  in.seek(16);
  std::string body_signature;
  while (in.at() < fields_end) {
    uint8_t code = 0;
    std::string type;
    if (!in.pad(8) || in.at() >= fields_end) break;
    if (!in.u8(&code) || !in.sig(&type)) return std::nullopt;
    std::string s;
    uint32_t u = 0;
    if (type == "s" || type == "o") {
      if (!in.str(&s)) return std::nullopt;
    } else if (type == "g") {
      if (!in.sig(&s)) return std::nullopt;
    } else if (type == "u") {
      if (!in.u32(&u)) return std::nullopt;
    } else {
      return std::nullopt;  // no header field of the specification has another type
    }
    if (code == kReplySerial) r.reply_serial = u;
    if (code == kErrorName) r.error_name = s;
    if (code == kSignature) body_signature = s;
  }
  if (in.at() > fields_end) return std::nullopt;
  if (r.type == 3 && !body_signature.empty() && body_signature[0] == 's') {
    in.seek((fields_end + 7) / 8 * 8);
    std::string msg;
    if (in.str(&msg)) r.error_message = msg.substr(0, 300);
  }
  return r;
}

std::string dbus_auth_external_line(unsigned uid) {
  std::string decimal = std::to_string(uid), hex;
  char buf[3];
  for (char c : decimal) {
    std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned char>(c));
    hex += buf;
  }
  return "AUTH EXTERNAL " + hex + "\r\n";
}

}  // namespace gnh
