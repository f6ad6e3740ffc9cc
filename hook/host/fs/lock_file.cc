#include "host/fs/lock_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include "base/error.h"

namespace gnh {

LockFile::LockFile(const std::string& path, const Deadline& deadline) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd_ < 0 && errno == ENOENT) {
    // A fresh /run/<dir> (or a fixture tree without one): create the parent once.
    auto slash = path.rfind('/');
    if (slash != std::string::npos && slash > 0) ::mkdir(path.substr(0, slash).c_str(), 0755);
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  }
  if (fd_ < 0) fail("cannot open lock file " + path + ": " + errno_text(errno), errno);
  auto pause = std::chrono::microseconds(200);
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      int err = errno;
      ::close(fd_);
      fail("cannot lock " + path + ": " + errno_text(err), err);
    }
    if (deadline.expired()) {
      ::close(fd_);
      fail("lock " + path + " is held by another process past the deadline (a hung 'gpu-numa-hook'?)");
    }
    std::this_thread::sleep_for(pause);
    if (pause < std::chrono::milliseconds(5)) pause *= 2;
  }
}

LockFile::~LockFile() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace gnh
