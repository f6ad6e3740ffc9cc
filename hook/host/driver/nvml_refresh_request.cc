#include "host/driver/nvml_refresh_request.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>

#include "gpu/nvml_refresh_protocol.h"

namespace gnh {

namespace {

long now_ms() {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return long(t.tv_sec) * 1000 + t.tv_nsec / 1'000'000;
}

// True while another process holds the follower's lock.
bool follower_running(const std::string& lock_path) {
  int fd = ::open(lock_path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  return held;
}

// True when the inotify events in buf name the answer file.
bool names_answer(const char* buf, ssize_t n) {
  for (ssize_t at = 0; at + ssize_t(sizeof(inotify_event)) <= n;) {
    const auto* e = reinterpret_cast<const inotify_event*>(buf + at);
    if (e->len > 0 && std::strcmp(e->name, kNvmlRefreshAnswerName) == 0) return true;
    at += ssize_t(sizeof(inotify_event)) + e->len;
  }
  return false;
}

}  // namespace

NvmlRefreshRequest request_nvml_refresh(const HostFs& fs, int wait_ms) {
  NvmlRefreshRequest r;
  if (wait_ms <= 0 || !follower_running(fs.resolve(kNvmlFollowerLockPath))) return r;
  r.follower = true;
  const std::string dir = fs.resolve(kNvmlFollowerDir);
  // Watching before asking: an answer renamed in between is not missed.
  int in = ::inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (in < 0) return r;
  if (::inotify_add_watch(in, dir.c_str(), IN_MOVED_TO) < 0) {
    ::close(in);
    return r;
  }
  int req = ::open((dir + "/" + kNvmlRefreshRequestName).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (req < 0) {
    ::close(in);
    return r;
  }
  ::close(req);  // the follower wakes on this close
  const long deadline = now_ms() + wait_ms;
  alignas(inotify_event) char buf[4096];
  for (long left = wait_ms; left > 0 && !r.answered; left = deadline - now_ms()) {
    pollfd p{in, POLLIN, 0};
    if (::poll(&p, 1, int(left)) <= 0) continue;
    ssize_t n = ::read(in, buf, sizeof buf);
    if (n > 0 && names_answer(buf, n)) r.answered = true;
  }
  ::close(in);
  if (r.answered) {
    try {
      auto text = fs.read(std::string(kNvmlFollowerDir) + "/" + kNvmlRefreshAnswerName, 512);
      r.answer = text ? text->substr(0, text->find('\n')) : "its answer is gone";
    } catch (const std::exception& e) {
      r.answer = std::string("its answer could not be read (") + e.what() + ")";
    }
  }
  return r;
}

}  // namespace gnh
