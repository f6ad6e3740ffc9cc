// The one narrow door to the host. Every host path the program reads or writes goes through here,
// rooted at "/" in production or at a fixture tree (--host-root) in tests and on captured hosts.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gnh {

class HostFs {
 public:
  explicit HostFs(std::string root = "/");

  const std::string& root() const { return root_; }
  bool is_real_root() const { return root_ == "/"; }
  // The path on this machine for a host path ("/proc/self/mountinfo" -> "<root>/proc/self/mountinfo").
  std::string resolve(std::string_view host_path) const;

  // Reads a small file whole. nullopt when it does not exist (ENOENT, ENOTDIR); Failure on any
  // other error or when it is larger than max_bytes (a hostile or broken file cannot balloon us).
  std::optional<std::string> read(std::string_view host_path, size_t max_bytes = 64 * 1024) const;
  // Same, but absence is a Failure naming the file.
  std::string read_required(std::string_view host_path, size_t max_bytes = 64 * 1024) const;

  // Reads/writes `rel` strictly beneath the directory `base` (a cgroup mount): no "..", no
  // symlinks, no magic links (openat2 RESOLVE_BENEATH where the kernel has it, a checked walk
  // otherwise). Cgroup paths come from /proc/<pid>/cgroup, which a container can influence.
  std::optional<std::string> read_beneath(std::string_view base, std::string_view rel,
                                          size_t max_bytes = 64 * 1024) const;
  // Writes text to an existing file beneath base; returns 0 or the errno of the failed step.
  int write_beneath(std::string_view base, std::string_view rel, std::string_view text) const;
  bool dir_exists_beneath(std::string_view base, std::string_view rel) const;

  // Names in a directory, sorted; empty when the directory does not exist.
  std::vector<std::string> list_dir(std::string_view host_path) const;
  std::vector<std::string> list_subdirs_beneath(std::string_view base, std::string_view rel) const;

 private:
  int open_beneath(std::string_view base, std::string_view rel, int flags) const;
  std::string root_;
};

// Fault injection for tests/fixture/fault_test.cc, and nothing else: when set, it is called with
// the full path before every write_beneath, and a non-zero return is taken as that write's errno
// (nothing is written). Inert unless a test sets it; no option, file or variable of the program
// reaches it. It exercises the real patch code with the errors only a real kernel gives
// (EACCES, EINVAL, EBUSY, ESRCH) at any chosen step.
using WriteFaultForTests = std::function<int(const std::string& path)>;
void set_write_fault_for_tests(WriteFaultForTests fault);

// True for a relative cgroup path made only of normal components (no "..", ".", NUL or empties
// other than a leading/trailing slash).
bool is_clean_relative_path(std::string_view rel);

}  // namespace gnh
