#include "host/fs/liveness_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

namespace gnh {

LivenessLock::LivenessLock(const std::string& path) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0) return;
  // Shared: a second instance (a rollout's overlap, a restarted runtime's new plugin) holds it too.
  while (::flock(fd_, LOCK_SH) != 0) {
    if (errno == EINTR) continue;
    ::close(fd_);
    fd_ = -1;
    return;
  }
}

LivenessLock::~LivenessLock() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<bool> liveness_lock_held(const HostFs& fs, std::string_view host_path) {
  // Read-only is enough for flock, and is all a reader mounting the host read-only has.
  int fd = ::open(fs.resolve(host_path).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  bool held;
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
    held = false;  // nobody had it; ours goes with the close below
  } else {
    held = errno == EWOULDBLOCK;
    if (!held) {
      ::close(fd);
      return std::nullopt;
    }
  }
  ::close(fd);
  return held;
}

}  // namespace gnh
