#include "plugin/hook_binary.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

#include "plugin/exec_check.h"
#include "plugin/resolve_in_root.h"

namespace gnh::nri {

namespace {

// The host's mount table, parsed again when older than kMaxAge, or sooner (at most every
// kMinAge) when the mount it names for the hook is not the file's device: a mount made since.
class MountTableCache {
 public:
  // The mount holding `host_path` on device `dev`; nullopt when the table does not know the file
  // (unreadable, or another mount namespace's: then statvfs on our own view of it decides).
  std::optional<MountInfoLine> mount_of(const std::string& source, const std::string& host_path, dev_t dev) {
    std::lock_guard<std::mutex> l(m_);
    const auto now = std::chrono::steady_clock::now();
    const bool old = source != source_ || now - read_at_ > kMaxAge;
    if (old) reload(source, now);
    const MountInfoLine* m = mount_for_path(mounts_, host_path);
    if ((!m || m->device != dev_name(dev)) && !old && now - read_at_ > kMinAge) {
      reload(source, now);
      m = mount_for_path(mounts_, host_path);
    }
    if (!m || m->device != dev_name(dev)) return std::nullopt;
    return *m;
  }

 private:
  static constexpr auto kMaxAge = std::chrono::seconds(30);
  static constexpr auto kMinAge = std::chrono::seconds(5);
  static std::string dev_name(dev_t d) { return std::to_string(major(d)) + ":" + std::to_string(minor(d)); }
  void reload(const std::string& source, std::chrono::steady_clock::time_point now) {
    source_ = source;
    read_at_ = now;
    mounts_.clear();
    std::ifstream in(source);
    std::stringstream text;
    text << in.rdbuf();
    if (auto parsed = parse_mountinfo(text.str())) mounts_ = std::move(*parsed);
  }
  std::mutex m_;
  std::string source_;
  std::chrono::steady_clock::time_point read_at_;
  std::vector<MountInfoLine> mounts_;
};

MountTableCache& mount_table() {
  static MountTableCache cache;
  return cache;
}

// The last verdict reached on each (host root, path), for a probe that cannot look.
class LastVerdicts {
 public:
  HookBinary remember(HookBinary h, const std::string& host_root) {
    std::lock_guard<std::mutex> l(m_);
    last_[host_root + '\0' + h.path] = h;
    return h;
  }
  HookBinary unchecked(const std::string& path, const std::string& host_root, int err) {
    std::lock_guard<std::mutex> l(m_);
    auto it = last_.find(host_root + '\0' + path);
    HookBinary h;
    if (it != last_.end()) h = it->second;
    else h.path = path, h.usable = true;  // never checked: taken as present, the protective verdict
    h.unchecked = std::strerror(err);
    return h;
  }

 private:
  std::mutex m_;
  std::map<std::string, HookBinary> last_;
};

LastVerdicts& last_verdicts() {
  static LastVerdicts verdicts;
  return verdicts;
}

std::string mode_problem(const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  // Any execute bit, not access(X_OK): runc, as root, runs a file with any.
  if ((st.st_mode & 0111) == 0) {
    char mode[16];
    std::snprintf(mode, sizeof(mode), "%04o", unsigned(st.st_mode & 07777));
    return std::string("not executable (mode ") + mode + ")";
  }
  return "";
}

}  // namespace

HookBinary probe_hook_binary(const std::string& path, const std::string& host_root) {
  HookBinary h;
  h.path = path;
  ResolvedPath r = resolve_in_root(host_root, path);
  struct stat st {};
  if (r.error != 0 || ::fstat(r.fd, &st) != 0) {
    const int err = r.error ? r.error : errno;
    if (probe_failure_is_ours(err)) return last_verdicts().unchecked(path, host_root, err);
    h.problem = std::strerror(err);
    return last_verdicts().remember(h, host_root);
  }
  if ((h.problem = mode_problem(st)).empty()) {
    const std::string source = host_root == "/" ? "/proc/self/mountinfo" : host_root + "/proc/1/mountinfo";
    if (auto m = mount_table().mount_of(source, r.host_path, st.st_dev)) {
      h.problem = noexec_problem(*m);
    } else {
      // Our own view of the file's mount: it carries the host mount's flags (a bind copies them).
      struct statvfs vfs {};
      if (::fstatvfs(r.fd, &vfs) == 0 && (vfs.f_flag & ST_NOEXEC)) h.problem = "on a noexec mount";
    }
  }
  if (h.problem.empty() && r.parent_fd >= 0) {
    // Unreadable (mode 0711 to a root without CAP_DAC_OVERRIDE): runc, with it, still execs it.
    int fd = ::openat(r.parent_fd, r.name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 && probe_failure_is_ours(errno)) return last_verdicts().unchecked(path, host_root, errno);
    if (fd >= 0) {
      char head[64];
      ssize_t n = ::pread(fd, head, sizeof(head), 0);
      ::close(fd);
      if (n >= 0) h.problem = exec_format_problem(std::string_view(head, size_t(n)), this_node_elf());
    }
  }
  h.usable = h.problem.empty();
  return last_verdicts().remember(h, host_root);
}

}  // namespace gnh::nri
