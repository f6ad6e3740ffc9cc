#include "host/systemd/systemd_bus.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "systemd/dbus_message.h"
#include "systemd/systemd_unit.h"

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

// Reads messages until the reply to `serial`; "" for a method return.
std::string await_reply(int fd, uint32_t serial, const Deadline& deadline) {
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
    if (reply->type == 2) return "";
    return reply->error_name + (reply->error_message.empty() ? "" : ": " + reply->error_message);
  }
  return "no reply among the first " + std::to_string(kMaxTotal) + " bytes";
}

// One connection: connect, authenticate, (Hello on a bus), the call.
std::string call_on(const std::string& socket_path, bool bus, const std::vector<unsigned char>& call, uint32_t serial,
                    const Deadline& deadline) {
  Socket s(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (s.fd() < 0) return errno_text("socket", errno);
  struct sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof addr.sun_path) return "socket path too long: " + socket_path;
  std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
  if (::connect(s.fd(), reinterpret_cast<struct sockaddr*>(&addr), sizeof addr) != 0)
    return errno_text("connect " + socket_path, errno);
  // The NUL byte starts the SASL exchange; the server takes our uid from the socket (SO_PEERCRED).
  std::string auth = std::string(1, '\0') + dbus_auth_external_line(static_cast<unsigned>(::geteuid()));
  if (auto e = send_all(s.fd(), auth.data(), auth.size(), deadline); !e.empty()) return socket_path + ": " + e;
  std::string line;
  if (auto e = read_auth_line(s.fd(), deadline, &line); !e.empty()) return socket_path + ": " + e;
  if (line.compare(0, 3, "OK ") != 0) return socket_path + ": authentication refused: " + line.substr(0, line.size() - 2);
  std::vector<unsigned char> out = {'B', 'E', 'G', 'I', 'N', '\r', '\n'};
  if (bus) {
    auto hello = dbus_hello_call(serial - 1);
    out.insert(out.end(), hello.begin(), hello.end());
  }
  out.insert(out.end(), call.begin(), call.end());
  if (auto e = send_all(s.fd(), out.data(), out.size(), deadline); !e.empty()) return socket_path + ": " + e;
  if (bus)
    if (auto e = await_reply(s.fd(), serial - 1, deadline); !e.empty()) return socket_path + ": Hello: " + e;
  if (auto e = await_reply(s.fd(), serial, deadline); !e.empty()) return socket_path + ": " + e;
  return "";
}

}  // namespace

std::string set_unit_allowed_memory_nodes(const HostFs& fs, const std::string& unit, const NodeSet& nodes,
                                          const Deadline& deadline) {
  if (nodes.empty()) return "refusing to set an empty AllowedMemoryNodes (systemd reads it as no restriction)";
  auto call = dbus_set_allowed_memory_nodes_call(2, unit, true, allowed_nodes_bitmask(nodes));
  // systemd's own socket first (root only, no dbus-daemon in between; what systemctl uses as root),
  // then the system bus, as runc does when the private socket is not there.
  std::string private_error = call_on(fs.resolve("/run/systemd/private"), false, call, 2, deadline);
  if (private_error.empty()) return "";
  // An answer from systemd itself is final; only a socket we could not use is worth the bus.
  if (private_error.find("org.freedesktop.") != std::string::npos) return private_error;
  std::string bus_error = call_on(fs.resolve("/run/dbus/system_bus_socket"), true, call, 2, deadline);
  if (bus_error.empty()) return "";
  return private_error + "; " + bus_error;
}

}  // namespace gnh
