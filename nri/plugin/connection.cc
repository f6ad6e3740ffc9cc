#include "plugin/connection.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace gnh::nri {

namespace {

using Clock = std::chrono::steady_clock;

long long ms_since(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
}

bool write_all(int fd, std::string_view data, int timeout_ms, std::string* why) {
  auto t0 = Clock::now();
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      data.remove_prefix(size_t(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      long long left = timeout_ms - ms_since(t0);
      if (left <= 0) {
        *why = "the runtime did not read our answer within " + std::to_string(timeout_ms) + " ms";
        return false;
      }
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, int(left));
      continue;
    }
    *why = std::string("write to the runtime failed: ") + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace

int dial_unix(const std::string& path, std::string* error) {
  sockaddr_un addr{};
  if (path.size() >= sizeof(addr.sun_path)) {
    *error = "socket path " + path + " is too long";
    return -1;
  }
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *error = std::string("socket: ") + std::strerror(errno);
    return -1;
  }
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    *error = "cannot connect to " + path + ": " + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  return fd;
}

ConnectionEnd run_connection(int fd, Session& session, const std::string& name, const std::string& idx,
                             const ConnectionLimits& limits, const std::function<void()>& on_registered,
                             const std::atomic<bool>& stop) {
  ConnectionEnd end;
  auto finish = [&](std::string why) {
    ::close(fd);
    end.was_configured = session.configured();
    end.was_registered = session.synchronized() || (limits.registered_at_configure && session.configured());
    end.why = std::move(why);
    return end;
  };
  std::string why;
  if (!write_all(fd, session.register_plugin(name, idx), limits.write_timeout_ms, &why)) return finish(why);
  const auto started = Clock::now();
  auto last_bytes = Clock::now();
  bool announced = false;
  std::string buf(64 * 1024, '\0');
  std::string out, error;
  // Each answer is written as soon as its call is handled (Session::set_flush).
  bool write_failed = false;
  session.set_flush([&](const std::string& answer, std::string* e) {
    if (write_all(fd, answer, limits.write_timeout_ms, e)) return true;
    write_failed = true;
    return false;
  });
  while (true) {
    if (stop.load()) return finish("the plugin is stopping");
    int wait_ms = 500;  // wakes to check `stop` and the timeouts
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, wait_ms);
    if (r < 0 && errno != EINTR) return finish(std::string("poll failed: ") + std::strerror(errno));
    if (r > 0) {
      ssize_t n = ::recv(fd, buf.data(), buf.size(), 0);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n < 0) return finish(std::string("read from the runtime failed: ") + std::strerror(errno));
      if (n == 0) {
        if (session.pending() > 0)
          return finish("the runtime closed the connection in the middle of a frame (" +
                        std::to_string(session.pending()) + " bytes of it received)");
        return finish("the runtime closed the connection");
      }
      last_bytes = Clock::now();
      out.clear();
      write_failed = false;
      bool ok = session.on_bytes(std::string_view(buf.data(), size_t(n)), &out, &error);
      if (write_failed) return finish(error);
      if (!out.empty() && !write_all(fd, out, limits.write_timeout_ms, &why)) return finish(why);
      if (!ok) return finish("protocol error, connection dropped: " + error);
      if ((session.synchronized() || (limits.registered_at_configure && session.configured())) && !announced) {
        announced = true;
        on_registered();
      }
      if (session.shutdown_requested()) {
        end.shutdown = true;
        return finish("the runtime asked the plugin to shut down");
      }
      continue;
    }
    if (!session.configured() && ms_since(started) > limits.configure_timeout_ms)
      return finish("the runtime did not configure the plugin within " + std::to_string(limits.configure_timeout_ms) +
                    " ms of RegisterPlugin" + (session.registered() ? "" : " (and never answered it)"));
    if (session.pending() > 0 && ms_since(last_bytes) > limits.mid_frame_timeout_ms)
      return finish("the runtime stopped in the middle of a frame (" + std::to_string(session.pending()) +
                    " bytes of it received, nothing for " + std::to_string(limits.mid_frame_timeout_ms) + " ms)");
  }
}

}  // namespace gnh::nri
