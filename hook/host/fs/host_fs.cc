#include "host/fs/host_fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/error.h"
#include "host/fs/owned_fd.h"
#include "base/relative_path.h"

namespace gnh {

namespace {

WriteFaultForTests g_write_fault;     // empty in the program; see host_fs.h
bool g_openat2_disabled = false;      // false in the program; see host_fs.h


std::string read_fd(int fd, size_t max_bytes, const std::string& what, ReadEnd end = ReadEnd::at_eof) {
  std::string out;
  char buf[4096];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_errno("cannot read " + what, errno);
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > max_bytes)
      fail(what + " is larger than " + std::to_string(max_bytes) + " bytes", EFBIG);
    out.append(buf, static_cast<size_t>(n));
    if (end == ReadEnd::at_short_read && static_cast<size_t>(n) < sizeof buf) break;
  }
  return out;
}

long openat2_syscall(int dirfd, const char* path, struct open_how* how) {
#ifdef SYS_openat2
  if (!g_openat2_disabled) return syscall(SYS_openat2, dirfd, path, how, sizeof(*how));
#endif
  errno = ENOSYS;
  return -1;
}

bool is_cgroupfs(long magic) { return magic == CGROUP_SUPER_MAGIC || magic == CGROUP2_SUPER_MAGIC; }

// The component walk for kernels without openat2: O_NOFOLLOW on every component (no symlinks),
// the path already holds no "..", every component on the base's filesystem (no mount crossing,
// as RESOLVE_NO_XDEV), and on a cgroup mount the result must be cgroupfs (runc's check).
int walk_beneath(int dir, const std::string& r, int flags) {
  struct stat base_st;
  struct statfs base_fs;
  if (::fstat(dir, &base_st) != 0 || ::fstatfs(dir, &base_fs) != 0) return -1;
  OwnedFd cur(::dup(dir));
  if (cur.get() < 0) return -1;
  size_t start = 0;
  while (true) {
    size_t end = r.find('/', start);
    bool last = end == std::string::npos;
    std::string part = r.substr(start, last ? std::string::npos : end - start);
    OwnedFd next(::openat(cur.get(), part.c_str(), (last ? flags : (O_PATH | O_DIRECTORY)) | O_NOFOLLOW | O_CLOEXEC));
    if (next.get() < 0) {
      // A symlink where a directory is expected fails with ENOTDIR, which reads as "absent": say
      // ELOOP, as openat2 does, so a planted link is reported, not taken for a missing cgroup.
      struct stat lst;
      if (errno == ENOTDIR && ::fstatat(cur.get(), part.c_str(), &lst, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(lst.st_mode))
        errno = ELOOP;
      return -1;
    }
    struct stat st;
    if (::fstat(next.get(), &st) != 0) return -1;
    // O_PATH with O_NOFOLLOW opens a symlink itself instead of failing (even with O_DIRECTORY):
    // refuse it here, as openat2's RESOLVE_NO_SYMLINKS does.
    if (S_ISLNK(st.st_mode)) { errno = ELOOP; return -1; }
    if (st.st_dev != base_st.st_dev) { errno = EXDEV; return -1; }
    if (last) {
      struct statfs sfs;
      if (::fstatfs(next.get(), &sfs) != 0) return -1;
      if (is_cgroupfs(base_fs.f_type) && !is_cgroupfs(sfs.f_type)) { errno = EXDEV; return -1; }
      return next.release();
    }
    cur.reset(next.release());
    start = end + 1;
  }
}

std::string beneath_name(const std::string& base, std::string_view rel) {
  return base + "/" + std::string(strip_slashes(rel));
}

}  // namespace

void set_write_fault_for_tests(WriteFaultForTests fault) { g_write_fault = std::move(fault); }
void set_openat2_disabled_for_tests(bool disabled) { g_openat2_disabled = disabled; }

HostFs::HostFs(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  if (root_.empty()) root_ = "/";
}

std::string HostFs::resolve(std::string_view host_path) const {
  if (root_ == "/") return std::string(host_path);
  std::string out = root_;
  if (host_path.empty() || host_path.front() != '/') out += '/';
  out += host_path;
  return out;
}

namespace {

// `path` opened for reading; -1 when absent, Failure otherwise. The caller owns the descriptor.
inline int open_for_read(const std::string& path) {
  // open() would stop at the NUL: "/etc/shadow\0/config.json" must not read /etc/shadow.
  if (path.find('\0') != std::string::npos) fail("refusing to open '" + path + "': the path has a NUL byte", EINVAL);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0 && !is_absent_errno(errno)) fail_errno("cannot open " + path, errno);
  return fd;
}

}  // namespace

std::optional<std::string> HostFs::read(std::string_view host_path, size_t max_bytes, ReadEnd end) const {
  std::string path = resolve(host_path);
  OwnedFd fd(open_for_read(path));
  if (fd.get() < 0) return std::nullopt;
  return read_fd(fd.get(), max_bytes, path, end);
}

std::optional<std::string> HostFs::read_head(std::string_view host_path, size_t max_bytes) const {
  std::string path = resolve(host_path);
  OwnedFd fd(open_for_read(path));
  if (fd.get() < 0) return std::nullopt;
  std::string out(max_bytes, '\0');
  ssize_t n;
  do n = ::read(fd.get(), out.data(), max_bytes);
  while (n < 0 && errno == EINTR);
  if (n < 0) fail_errno("cannot read " + path, errno);
  out.resize(static_cast<size_t>(n));
  return out;
}

std::optional<uint64_t> HostFs::entry_inode(std::string_view host_path) const {
  std::string path = resolve(host_path);
  if (path.find('\0') != std::string::npos) fail("refusing to look at '" + path + "': the path has a NUL byte", EINVAL);
  struct stat st;
  if (::fstatat(AT_FDCWD, path.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (is_absent_errno(errno)) return std::nullopt;
    fail_errno("cannot look at " + path, errno);
  }
  return static_cast<uint64_t>(st.st_ino);
}

std::string HostFs::read_required(std::string_view host_path, size_t max_bytes) const {
  auto text = read(host_path, max_bytes);
  if (!text) fail(resolve(host_path) + " does not exist", ENOENT);
  return *text;
}

int HostFs::open_beneath(std::string_view base, std::string_view rel, int flags) const {
  if (!is_clean_relative_path(rel)) {
    errno = EINVAL;
    return -1;
  }
  std::string base_path = resolve(base);
  OwnedFd dir(::open(base_path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) return -1;
  std::string r(strip_slashes(rel));
  if (r.empty()) r = ".";
  struct open_how how = {};
  // openat2 rejects flags O_PATH does not take (O_NOCTTY among them).
  how.flags = static_cast<__u64>(flags | O_CLOEXEC | ((flags & O_PATH) ? 0 : O_NOCTTY));
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV;
  long fd = openat2_syscall(dir.get(), r.c_str(), &how);
  if (fd >= 0 || errno != ENOSYS) return static_cast<int>(fd);
  return walk_beneath(dir.get(), r, flags);
}

std::optional<std::string> HostFs::read_beneath(std::string_view base, std::string_view rel, size_t max_bytes,
                                                ReadEnd end) const {
  OwnedFd fd(open_beneath(base, rel, O_RDONLY | O_NONBLOCK));
  std::string what = beneath_name(resolve(base), rel);
  if (fd.get() < 0) {
    if (is_absent_errno(errno)) return std::nullopt;
    fail_errno("cannot open " + what, errno);
  }
  return read_fd(fd.get(), max_bytes, what, end);
}

void HostFs::write_beneath(std::string_view base, std::string_view rel, std::string_view text) const {
  std::string what = beneath_name(resolve(base), rel);
  auto refuse = [&](int err) { fail_errno("cannot write '" + std::string(text) + "' to " + what, err); };
  if (g_write_fault) {
    if (int err = g_write_fault(what)) refuse(err);
  }
  // O_TRUNC: cgroupfs replaces the value on every write anyway (as `echo x > file` does, which
  // also truncates); a plain file (a fixture or captured tree) must not keep a longer old tail.
  OwnedFd fd(open_beneath(base, rel, O_WRONLY | O_TRUNC));
  if (fd.get() < 0) refuse(errno);
  // cgroup attribute files take one write; a short write would be a partial value.
  ssize_t n = ::write(fd.get(), text.data(), text.size());
  if (n < 0) refuse(errno);
  if (static_cast<size_t>(n) != text.size()) refuse(EIO);
}

bool HostFs::dir_exists_beneath(std::string_view base, std::string_view rel) const {
  OwnedFd fd(open_beneath(base, rel, O_PATH | O_DIRECTORY));
  if (fd.get() >= 0) return true;
  if (is_absent_errno(errno)) return false;
  fail_errno("cannot open " + beneath_name(resolve(base), rel), errno);
}

namespace {
// Calls each(name, d_type) for every entry of the open directory fd but "." and "..", from its
// start (`rewind`: a descriptor listed before; a fresh one is at its start already), with
// getdents64 on the descriptor itself (fdopendir would take it, and a DIR allocates). Returns false
// when the directory was removed; Failure when it cannot be listed: a listing cut short would hide
// cgroups.
template <typename Each>
bool for_each_entry(int fd, std::string_view what, bool rewind, Each&& each) {
  if (rewind && ::lseek(fd, 0, SEEK_SET) < 0) fail_errno("cannot list " + std::string(what), errno);
  alignas(8) char buf[32 * 1024];
  while (true) {
    long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (is_absent_errno(errno)) return false;
      fail_errno("cannot list " + std::string(what), errno);
    }
    if (n == 0) return true;
    for (long off = 0; off < n;) {
      struct Dirent64 {
        uint64_t d_ino;
        int64_t d_off;
        unsigned short d_reclen;
        unsigned char d_type;
        char d_name[1];
      };
      const auto* e = reinterpret_cast<const Dirent64*>(buf + off);
      off += e->d_reclen;
      const char* nm = e->d_name;
      if (nm[0] == '.' && (nm[1] == 0 || (nm[1] == '.' && nm[2] == 0))) continue;
      each(nm, e->d_type, e->d_ino);
    }
  }
}

// Whether the entry `name` of the open directory fd is a directory, from getdents64's type where
// the filesystem gives one, else from the entry itself (a symlink to a directory is not one).
bool is_subdir(int fd, const char* name, unsigned char type) {
  if (type != DT_UNKNOWN) return type == DT_DIR;
  struct stat st;
  return ::fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

// Takes ownership of dfd, freshly opened. Errors are reported: a listing cut short would hide cgroups.
std::vector<std::string> list_fd(int dfd, bool dirs_only, const std::string& what) {
  OwnedFd fd(dfd);
  std::vector<std::string> names;
  const bool listed = for_each_entry(dfd, what, false, [&](const char* nm, unsigned char type, uint64_t) {
    if (!dirs_only || is_subdir(dfd, nm, type)) names.emplace_back(nm);
  });
  if (!listed) fail_errno("cannot list " + what, ENOENT);
  std::sort(names.begin(), names.end());
  return names;
}
}  // namespace

std::optional<std::vector<std::string>> HostFs::list_dir(std::string_view host_path) const {
  std::string path = resolve(host_path);
  int dfd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) {
    if (is_absent_errno(errno)) return std::nullopt;
    fail_errno("cannot open " + path, errno);
  }
  return list_fd(dfd, false, path);
}

std::optional<HostDir> HostFs::open_dir(std::string_view host_path) const {
  std::string path = resolve(host_path);
  int dfd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) {
    if (is_absent_errno(errno)) return std::nullopt;
    fail_errno("cannot open " + path, errno);
  }
  return HostDir(dfd, std::move(path));
}

std::optional<std::vector<std::string>> HostFs::list_subdirs_beneath(std::string_view base,
                                                                     std::string_view rel) const {
  std::string what = beneath_name(resolve(base), rel);
  int dfd = open_beneath(base, rel, O_RDONLY | O_DIRECTORY);
  if (dfd < 0) {
    if (is_absent_errno(errno)) return std::nullopt;
    fail_errno("cannot open " + what, errno);
  }
  return list_fd(dfd, true, what);
}

std::optional<BeneathDir> HostFs::open_dir_beneath(std::string_view base, std::string_view rel) const {
  int dfd = open_beneath(base, rel, O_RDONLY | O_DIRECTORY);
  if (dfd < 0) {
    if (is_absent_errno(errno)) return std::nullopt;
    fail_errno("cannot open " + beneath_name(resolve(base), rel), errno);
  }
  BeneathDir d(dfd, 0, false);
  struct stat st;
  struct statfs sfs;
  if (::fstat(dfd, &st) != 0 || ::fstatfs(dfd, &sfs) != 0) fail_errno("cannot stat " + beneath_name(resolve(base), rel), errno);
  d.dev_ = st.st_dev;
  d.cgroupfs_ = is_cgroupfs(sfs.f_type);
  return d;
}

BeneathDir::~BeneathDir() {
  if (fd_ >= 0) ::close(fd_);
}

int BeneathDir::open_entry(const char* name, int flags) const {
  // One component, never "." or "..": nothing here can leave the directory but a symlink or a
  // mount, which the rules below refuse.
  std::string_view n = name;
  if (n.empty() || n == "." || n == ".." || n.find('/') != std::string_view::npos) {
    errno = EINVAL;
    return -1;
  }
  struct open_how how = {};
  how.flags = static_cast<__u64>(flags | O_CLOEXEC | O_NOCTTY);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV;
  long fd = openat2_syscall(fd_, name, &how);
  if (fd >= 0 || errno != ENOSYS) return static_cast<int>(fd);
  // Kernels without openat2: what walk_beneath checks, for one component.
  OwnedFd f(::openat(fd_, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY));
  if (f.get() < 0) return -1;
  struct stat st;
  if (::fstat(f.get(), &st) != 0) return -1;
  if (st.st_dev != dev_) { errno = EXDEV; return -1; }
  if (cgroupfs_) {
    struct statfs sfs;
    if (::fstatfs(f.get(), &sfs) != 0) return -1;
    if (!is_cgroupfs(sfs.f_type)) { errno = EXDEV; return -1; }
  }
  return f.release();
}

std::optional<BeneathDir> BeneathDir::subdir(const char* name, std::string_view what) const {
  int fd = open_entry(name, O_RDONLY | O_DIRECTORY);
  if (fd < 0) {
    if (is_absent_errno(errno)) return std::nullopt;
    fail_errno("cannot open " + std::string(what) + "/" + name, errno);
  }
  return BeneathDir(fd, dev_, cgroupfs_);
}

bool BeneathDir::read(const char* name, std::string* out, std::string_view what, size_t max_bytes) const {
  OwnedFd fd(open_entry(name, O_RDONLY | O_NONBLOCK));
  if (fd.get() < 0) {
    if (is_absent_errno(errno)) return false;
    fail_errno("cannot open " + std::string(what) + "/" + name, errno);
  }
  out->clear();
  char buf[4096];
  while (true) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_errno("cannot read " + std::string(what) + "/" + name, errno);
    }
    if (n == 0) break;
    if (out->size() + static_cast<size_t>(n) > max_bytes)
      fail(std::string(what) + "/" + name + " is larger than " + std::to_string(max_bytes) + " bytes", EFBIG);
    out->append(buf, static_cast<size_t>(n));
  }
  return true;
}

bool BeneathDir::subdirs(std::vector<std::string>* names, std::string_view what) const {
  return for_each_entry(fd_, what, true, [&](const char* nm, unsigned char type, uint64_t) {
    if (is_subdir(fd_, nm, type)) names->emplace_back(nm);
  });
}

HostDir::~HostDir() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<std::string> HostDir::read(std::string_view rel, size_t max_bytes, ReadEnd end) const {
  std::string name(rel);
  std::string what = path_ + "/" + name;
  if (name.find('\0') != std::string::npos) fail("refusing to open '" + what + "': the path has a NUL byte", EINVAL);
  OwnedFd fd(::openat(fd_, name.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (fd.get() < 0) {
    if (is_absent_errno(errno)) return std::nullopt;
    fail_errno("cannot open " + what, errno);
  }
  return read_fd(fd.get(), max_bytes, what, end);
}

std::vector<std::pair<std::string, uint64_t>> HostDir::entries() const {
  std::vector<std::pair<std::string, uint64_t>> out;
  if (!for_each_entry(fd_, path_, true, [&](const char* nm, unsigned char, uint64_t ino) { out.emplace_back(nm, ino); }))
    fail_errno("cannot list " + path_, ENOENT);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> HostDir::names() const {
  std::vector<std::string> out;
  if (!for_each_entry(fd_, path_, true, [&](const char* nm, unsigned char, uint64_t) { out.emplace_back(nm); }))
    fail_errno("cannot list " + path_, ENOENT);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace gnh
