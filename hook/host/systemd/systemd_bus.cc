#include "host/systemd/systemd_bus.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "systemd/dbus_message.h"
#include "systemd/systemd_unit.h"
#include "systemd/allowed_nodes_probe.h"

namespace gnh {

namespace {

constexpr size_t kMaxMessage = 256 * 1024;   // a reply to our call is a few hundred bytes
constexpr size_t kMaxTotal = 1024 * 1024;    // signals from the bus before our reply included
constexpr size_t kMaxAuthLine = 512;

std::string errno_text(const std::string& what, int e) { return what + ": " + std::strerror(e); }

class Socket {
 public:
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return fd_; }
  void reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

// Waits for `events` until the deadline; "" when ready.
std::string wait_for(int fd, short events, const Deadline& deadline, const char* what) {
  for (;;) {
    struct pollfd p = {fd, events, 0};
    int ms = static_cast<int>(deadline.left().count());
    if (ms <= 0) return std::string("no ") + what + " before the hook's deadline";
    int rc = ::poll(&p, 1, ms);
    if (rc > 0) return "";
    if (rc == 0) return std::string("no ") + what + " before the hook's deadline";
    if (errno != EINTR) return errno_text("poll", errno);
  }
}

std::string send_all(int fd, const void* data, size_t n, const Deadline& deadline) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    // MSG_NOSIGNAL: a peer that went away is an error to report, not a SIGPIPE that kills the hook.
    ssize_t w = ::sendto(fd, p, n, MSG_NOSIGNAL, nullptr, 0);
    if (w > 0) {
      p += w;
      n -= static_cast<size_t>(w);
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EAGAIN) {
      if (auto e = wait_for(fd, POLLOUT, deadline, "room to send"); !e.empty()) return e;
      continue;
    }
    return errno_text("send", errno);
  }
  return "";
}

// Reads exactly n bytes.
std::string read_exact(int fd, unsigned char* out, size_t n, const Deadline& deadline) {
  while (n > 0) {
    ssize_t r = ::read(fd, out, n);
    if (r > 0) {
      out += r;
      n -= static_cast<size_t>(r);
      continue;
    }
    if (r == 0) return "systemd closed the connection";
    if (errno == EINTR) continue;
    if (errno != EAGAIN) return errno_text("read", errno);
    if (auto e = wait_for(fd, POLLIN, deadline, "reply from systemd"); !e.empty()) return e;
  }
  return "";
}

// The server's answer to AUTH, one line; byte by byte so nothing after it is consumed.
std::string read_auth_line(int fd, const Deadline& deadline, std::string* line) {
  line->clear();
  while (line->size() < kMaxAuthLine) {
    unsigned char c = 0;
    if (auto e = read_exact(fd, &c, 1, deadline); !e.empty()) return e;
    line->push_back(static_cast<char>(c));
    if (line->size() >= 2 && line->compare(line->size() - 2, 2, "\r\n") == 0) return "";
  }
  return "authentication line longer than " + std::to_string(kMaxAuthLine) + " bytes";
}

// Reads messages until the reply to `serial`; "" for a method return (kept in *out when given).
std::string await_reply(int fd, uint32_t serial, const Deadline& deadline, DbusReply* out = nullptr) {
  size_t total = 0;
  while (total < kMaxTotal) {
    std::vector<unsigned char> msg(16);
    if (auto e = read_exact(fd, msg.data(), 16, deadline); !e.empty()) return e;
    auto size = dbus_message_size(msg.data(), kMaxMessage);
    if (!size || *size < 16) return "malformed D-Bus message from systemd";
    msg.resize(*size);
    if (auto e = read_exact(fd, msg.data() + 16, *size - 16, deadline); !e.empty()) return e;
    total += *size;
    auto reply = parse_dbus_reply(msg);
    if (!reply) return "malformed D-Bus message from systemd";
    if (reply->reply_serial != serial || (reply->type != 2 && reply->type != 3)) continue;  // a signal
    if (out) *out = *reply;
    if (reply->type == 2) return "";
    return reply->error_name + (reply->error_message.empty() ? "" : ": " + reply->error_message);
  }
  return "no reply among the first " + std::to_string(kMaxTotal) + " bytes";
}

// One connection: connect, authenticate, (Hello on a bus); then calls one at a time.
class Connection {
 public:
  Connection(std::string socket_path, const Deadline& deadline) : path_(std::move(socket_path)), deadline_(deadline) {}

  // "" when ready for calls.
  std::string open(bool bus) {
    s_.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (s_.fd() < 0) return errno_text("socket", errno);
    struct sockaddr_un addr = {};
    addr.sun_family = AF_UNIX;
    if (path_.size() >= sizeof addr.sun_path) return "socket path too long: " + path_;
    std::memcpy(addr.sun_path, path_.c_str(), path_.size() + 1);
    if (::connect(s_.fd(), reinterpret_cast<struct sockaddr*>(&addr), sizeof addr) != 0)
      return errno_text("connect " + path_, errno);
    // The NUL byte starts the SASL exchange; the server takes our uid from the socket (SO_PEERCRED).
    std::string auth = std::string(1, '\0') + dbus_auth_external_line(static_cast<unsigned>(::geteuid()));
    if (auto e = send_all(s_.fd(), auth.data(), auth.size(), deadline_); !e.empty()) return path_ + ": " + e;
    std::string line;
    if (auto e = read_auth_line(s_.fd(), deadline_, &line); !e.empty()) return path_ + ": " + e;
    if (line.compare(0, 3, "OK ") != 0) return path_ + ": authentication refused: " + line.substr(0, line.size() - 2);
    std::vector<unsigned char> out = {'B', 'E', 'G', 'I', 'N', '\r', '\n'};
    if (bus) {
      auto hello = dbus_hello_call(1);
      out.insert(out.end(), hello.begin(), hello.end());
    }
    if (auto e = send_all(s_.fd(), out.data(), out.size(), deadline_); !e.empty()) return path_ + ": " + e;
    if (bus)
      if (auto e = await_reply(s_.fd(), 1, deadline_); !e.empty()) return path_ + ": Hello: " + e;
    return "";
  }

  // "" for a method return (in *reply when given); else the error, prefixed with the socket.
  std::string call(const std::vector<unsigned char>& msg, uint32_t serial, DbusReply* reply = nullptr) {
    if (auto e = send_all(s_.fd(), msg.data(), msg.size(), deadline_); !e.empty()) return path_ + ": " + e;
    if (auto e = await_reply(s_.fd(), serial, deadline_, reply); !e.empty()) return path_ + ": " + e;
    return "";
  }

 private:
  std::string path_;
  const Deadline& deadline_;
  Socket s_{-1};
};

// The unit's property, then the Set; serials 2 and 3 (1 is Hello).
AllowedNodesAnswer tell_on(const std::string& socket_path, bool bus, const std::string& unit, const NodeSet& nodes,
                           const Deadline& deadline) {
  AllowedNodesAnswer a;
  Connection c(socket_path, deadline);
  if (a.error = c.open(bus); !a.error.empty()) return a;
  DbusReply probe;
  std::string e =
      c.call(dbus_get_property_call(2, unit_object_path(unit), unit_interface(unit), "AllowedMemoryNodes"), 2, &probe);
  if (!e.empty() && probe.error_name == kUnknownPropertyError) {
    a.unsupported = true;
    return a;
  }
  // Any other answer (the property's value, NoSuchUnit, ...): the Set says what it says.
  a.error = c.call(dbus_set_allowed_memory_nodes_call(3, unit, true, allowed_nodes_bitmask(nodes)), 3);
  return a;
}

}  // namespace

AllowedNodesAnswer set_unit_allowed_memory_nodes(const HostFs& fs, const std::string& unit, const NodeSet& nodes,
                                                 const Deadline& deadline) {
  if (nodes.empty()) return {"refusing to set an empty AllowedMemoryNodes (systemd reads it as no restriction)", false};
  // systemd's own socket first (root only, no dbus-daemon in between; what systemctl uses as root),
  // then the system bus, as runc does when the private socket is not there.
  AllowedNodesAnswer priv = tell_on(fs.resolve("/run/systemd/private"), false, unit, nodes, deadline);
  if (priv.error.empty()) return priv;
  // An answer from systemd itself is final; only a socket we could not use is worth the bus.
  if (priv.error.find("org.freedesktop.") != std::string::npos) return priv;
  AllowedNodesAnswer viabus = tell_on(fs.resolve("/run/dbus/system_bus_socket"), true, unit, nodes, deadline);
  if (viabus.error.empty()) return viabus;
  viabus.error = priv.error + "; " + viabus.error;
  return viabus;
}

}  // namespace gnh
