#include "host_fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "failure.h"

namespace gnh {

namespace {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { if (fd_ >= 0) ::close(fd_); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
 private:
  int fd_;
};

std::optional<std::string> read_fd(int fd, size_t max_bytes, const std::string& what) {
  std::string out;
  char buf[4096];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot read " + what + ": " + errno_text(errno));
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > max_bytes)
      fail(what + " is larger than " + std::to_string(max_bytes) + " bytes");
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

bool is_absent(int err) { return err == ENOENT || err == ENOTDIR; }

long openat2_syscall(int dirfd, const char* path, struct open_how* how) {
#ifdef SYS_openat2
  return syscall(SYS_openat2, dirfd, path, how, sizeof(*how));
#else
  errno = ENOSYS;
  return -1;
#endif
}

std::string_view strip_slashes(std::string_view s) {
  while (!s.empty() && s.front() == '/') s.remove_prefix(1);
  while (!s.empty() && s.back() == '/') s.remove_suffix(1);
  return s;
}

}  // namespace

bool is_clean_relative_path(std::string_view rel) {
  if (rel.find('\0') != std::string_view::npos) return false;
  rel = strip_slashes(rel);
  if (rel.empty()) return true;
  size_t start = 0;
  while (start <= rel.size()) {
    size_t end = rel.find('/', start);
    if (end == std::string_view::npos) end = rel.size();
    std::string_view part = rel.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

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

std::optional<std::string> HostFs::read(std::string_view host_path, size_t max_bytes) const {
  std::string path = resolve(host_path);
  // open() would stop at the NUL: "/etc/shadow\0/config.json" must not read /etc/shadow.
  if (path.find('\0') != std::string::npos) fail("refusing to open '" + path + "': the path has a NUL byte");
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (fd.get() < 0) {
    if (is_absent(errno)) return std::nullopt;
    fail("cannot open " + path + ": " + errno_text(errno));
  }
  return read_fd(fd.get(), max_bytes, path);
}

std::string HostFs::read_required(std::string_view host_path, size_t max_bytes) const {
  auto text = read(host_path, max_bytes);
  if (!text) fail(resolve(host_path) + " does not exist");
  return *text;
}

int HostFs::open_beneath(std::string_view base, std::string_view rel, int flags) const {
  if (!is_clean_relative_path(rel)) {
    errno = EINVAL;
    return -1;
  }
  std::string base_path = resolve(base);
  Fd dir(::open(base_path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) return -1;
  std::string r(strip_slashes(rel));
  if (r.empty()) r = ".";
  struct open_how how = {};
  // openat2 rejects flags O_PATH does not take (O_NOCTTY among them).
  how.flags = static_cast<__u64>(flags | O_CLOEXEC | ((flags & O_PATH) ? 0 : O_NOCTTY));
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV;
  long fd = openat2_syscall(dir.get(), r.c_str(), &how);
  if (fd >= 0 || errno != ENOSYS) return static_cast<int>(fd);
  // Kernels before 5.6: walk component by component refusing symlinks; the path is already
  // known to hold no "..".
  int cur = ::dup(dir.get());
  size_t start = 0;
  while (true) {
    size_t end = r.find('/', start);
    bool last = end == std::string::npos;
    std::string part = r.substr(start, last ? std::string::npos : end - start);
    int next = ::openat(cur, part.c_str(),
                        (last ? flags : (O_PATH | O_DIRECTORY)) | O_NOFOLLOW | O_CLOEXEC);
    int saved = errno;
    ::close(cur);
    if (next < 0) { errno = saved; return -1; }
    cur = next;
    if (last) return cur;
    start = end + 1;
  }
}

std::optional<std::string> HostFs::read_beneath(std::string_view base, std::string_view rel,
                                                size_t max_bytes) const {
  Fd fd(open_beneath(base, rel, O_RDONLY | O_NONBLOCK));
  std::string what = resolve(base) + "/" + std::string(strip_slashes(rel));
  if (fd.get() < 0) {
    if (is_absent(errno)) return std::nullopt;
    fail("cannot open " + what + ": " + errno_text(errno));
  }
  return read_fd(fd.get(), max_bytes, what);
}

namespace {
WriteFaultForTests g_write_fault;  // empty in the program; see host_fs.h
}  // namespace

void set_write_fault_for_tests(WriteFaultForTests fault) { g_write_fault = std::move(fault); }

int HostFs::write_beneath(std::string_view base, std::string_view rel, std::string_view text) const {
  if (g_write_fault) {
    if (int err = g_write_fault(resolve(base) + "/" + std::string(strip_slashes(rel)))) return err;
  }
  // O_TRUNC: cgroupfs replaces the value on every write anyway (as `echo x > file` does, which
  // also truncates); a plain file (a fixture or captured tree) must not keep a longer old tail.
  Fd fd(open_beneath(base, rel, O_WRONLY | O_TRUNC));
  if (fd.get() < 0) return errno;
  // cgroup attribute files take one write; a short write would be a partial value.
  ssize_t n = ::write(fd.get(), text.data(), text.size());
  if (n < 0) return errno;
  if (static_cast<size_t>(n) != text.size()) return EIO;
  return 0;
}

bool HostFs::dir_exists_beneath(std::string_view base, std::string_view rel) const {
  Fd fd(open_beneath(base, rel, O_PATH | O_DIRECTORY));
  return fd.get() >= 0;
}

namespace {
std::vector<std::string> list_fd(int dfd, bool dirs_only) {
  std::vector<std::string> names;
  DIR* d = ::fdopendir(dfd);
  if (!d) { ::close(dfd); return names; }
  while (struct dirent* e = ::readdir(d)) {
    std::string_view n = e->d_name;
    if (n == "." || n == "..") continue;
    if (dirs_only) {
      bool is_dir = e->d_type == DT_DIR;
      if (e->d_type == DT_UNKNOWN) {
        struct stat st;
        is_dir = ::fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
      }
      if (!is_dir) continue;
    }
    names.emplace_back(n);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}
}  // namespace

std::vector<std::string> HostFs::list_dir(std::string_view host_path) const {
  std::string path = resolve(host_path);
  int dfd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return {};
  return list_fd(dfd, false);
}

std::vector<std::string> HostFs::list_subdirs_beneath(std::string_view base,
                                                      std::string_view rel) const {
  int dfd = open_beneath(base, rel, O_RDONLY | O_DIRECTORY);
  if (dfd < 0) return {};
  return list_fd(dfd, true);
}

}  // namespace gnh
