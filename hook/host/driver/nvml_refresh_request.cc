#include "host/driver/nvml_refresh_request.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>

#include "gpu/nvml_refresh_protocol.h"
#include "host/fs/inotify_events.h"
#include "host/fs/liveness_lock.h"

namespace gnh {

namespace {

long now_ms() {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return long(t.tv_sec) * 1000 + t.tv_nsec / 1'000'000;
}

}  // namespace

NvmlRefreshRequest request_nvml_refresh(const HostFs& fs, int wait_ms) {
  NvmlRefreshRequest r;
  if (wait_ms <= 0 || liveness_lock_held(fs, kNvmlFollowerLockPath) != true) return r;
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
    if (n > 0 && inotify_events_name(buf, n, kNvmlRefreshAnswerName)) r.answered = true;
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
