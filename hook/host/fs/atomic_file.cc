#include "host/fs/atomic_file.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/error.h"

namespace gnh {

namespace {

// Swaps the new file in with renameat2(RENAME_EXCHANGE) and removes the old one under the temp
// name. Readers see the old or the new file, as with rename; the difference is ext4's
// auto_da_alloc, which starts writeback of the new file inside a rename that replaces a regular
// file (the "replace by rename" heuristic), on the caller's time; an exchange replaces nothing,
// so the dirty pages wait for the flusher like any other. False (nothing done) when `path` is not
// a regular file or the filesystem has no exchange: the caller renames instead.
bool exchanged(const std::string& tmp, const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) != 0) return false;
  // The new file is in place; an old copy left under the dot-name would be harmless (it goes with
  // the directory), so a failure here does not undo a good replacement.
  ::unlink(tmp.c_str());
  return true;
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& text, unsigned mode, Durability durability) {
  auto slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  // A dot-name not ending like the target: node_exporter (only *.prom) and tools that glob never
  // pick up the file half-written.
  std::string tmp = dir + "/." + base + ".XXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) fail("cannot create a temporary file in " + dir + " for " + path + ": " + errno_text(errno));
  auto give_up = [&](const std::string& what) {
    int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    fail("cannot " + what + " " + tmp + " (for " + path + "): " + errno_text(err));
  };
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      give_up("write");
    }
    done += static_cast<size_t>(n);
  }
  if (::fchmod(fd, static_cast<mode_t>(mode)) != 0) give_up("chmod");
  if (durability == Durability::flushed && ::fsync(fd) != 0) give_up("fsync");
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    fail("cannot close " + tmp + " (for " + path + "): " + errno_text(err));
  }
  if (durability == Durability::replaced && exchanged(tmp, path)) return;
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    fail("cannot rename " + tmp + " to " + path + ": " + errno_text(err));
  }
}

}  // namespace gnh
