#include "host/fs/in_place_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include "base/error.h"
#include "host/fs/owned_fd.h"
#include "host/fs/deadline.h"

namespace gnh {

namespace {


// flock with back-off until `wait` is spent; updates hold it for microseconds.
void lock(int fd, int how, const std::string& path, std::chrono::milliseconds wait) {
  Deadline deadline(wait);
  auto pause = std::chrono::microseconds(100);
  while (::flock(fd, how | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) fail("cannot lock " + path + ": " + errno_text(errno), errno);
    if (deadline.expired())
      fail("lock of " + path + " held by another process for over " + std::to_string(wait.count()) + " ms");
    std::this_thread::sleep_for(pause);
    if (pause < std::chrono::milliseconds(2)) pause *= 2;
  }
}

std::string read_all(int fd, const std::string& path, size_t max_bytes) {
  std::string text;
  char buf[4096];
  for (;;) {
    ssize_t n = ::pread(fd, buf, sizeof buf, off_t(text.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot read " + path + ": " + errno_text(errno), errno);
    }
    if (n == 0) return text;
    text.append(buf, size_t(n));
    if (text.size() > max_bytes) fail(path + " is larger than " + std::to_string(max_bytes) + " bytes");
  }
}

}  // namespace

void update_in_place(const std::string& path, std::chrono::milliseconds wait,
                     const std::function<std::string(std::string_view)>& update) {
  const int flags = O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW;
  int raw = ::open(path.c_str(), flags, 0644);
  if (raw < 0 && errno == ENOENT) {
    // A fresh /run: create the parent once.
    auto slash = path.rfind('/');
    if (slash != std::string::npos && slash > 0) ::mkdir(path.substr(0, slash).c_str(), 0755);
    raw = ::open(path.c_str(), flags, 0644);
  }
  if (raw < 0) fail("cannot open " + path + ": " + errno_text(errno), errno);
  OwnedFd fd(raw);
  lock(fd.get(), LOCK_EX, path, wait);
  const std::string old_text = read_all(fd.get(), path, 64 * 1024);
  std::string text = update(old_text);
  if (text.size() < old_text.size()) text.append(old_text.size() - text.size(), '\n');
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::pwrite(fd.get(), text.data() + done, text.size() - done, off_t(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot write " + path + ": " + errno_text(n < 0 ? errno : EIO), n < 0 ? errno : EIO);
    done += size_t(n);
  }
}

std::optional<std::string> read_in_place(const std::string& path, std::chrono::milliseconds wait, size_t max_bytes) {
  int raw = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (raw < 0 && (errno == ENOENT || errno == ENOTDIR)) return std::nullopt;
  if (raw < 0) fail("cannot open " + path + ": " + errno_text(errno), errno);
  OwnedFd fd(raw);
  lock(fd.get(), LOCK_SH, path, wait);
  return read_all(fd.get(), path, max_bytes);
}

}  // namespace gnh
