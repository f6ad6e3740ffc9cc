// The one narrow door to the host. Every host path the program reads or writes goes through here,
// rooted at "/" in production or at a fixture tree (--host-root) in tests and on captured hosts.
//
// One error convention: "absent" (ENOENT, ENOTDIR) is a value (nullopt, false), because containers
// and cgroups come and go; every other error is a Failure naming the path and keeping its errno,
// so no caller can mistake "could not read" for "nothing there".
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gnh {

class HostFs;

// Where a read of a file ends. Most files are read until read(2) returns 0. A kernel file that
// holds one record (a sysfs attribute, a cgroup's control file, the NVIDIA driver's per-GPU files,
// /proc/<pid>/cgroup) gives all of it to the first read that has room for it, and so does a regular
// file (a fixture tree) with no writer: a read that leaves room is the end. That saves one system
// call per file, a dozen on a GPU start. Never for a multi-record file such as mountinfo, which the
// kernel hands out a page at a time.
enum class ReadEnd { at_eof, at_short_read };

// A directory opened beneath a base by HostFs::open_dir_beneath, whose entries are opened by name
// relative to it (openat2 of one component, with the same rules: no symlinks, no magic links, no
// mount crossing; the fallback checks the same). `check` walks the cgroup tree with these: one
// open per directory and per file, no path strings rebuilt. `what` arguments name the directory
// in errors and are only used on an error. Move-only; closes its descriptor.
class BeneathDir {
 public:
  BeneathDir(BeneathDir&& o) noexcept : fd_(o.fd_), dev_(o.dev_), cgroupfs_(o.cgroupfs_) { o.fd_ = -1; }
  BeneathDir& operator=(BeneathDir&&) = delete;
  BeneathDir(const BeneathDir&) = delete;
  ~BeneathDir();

  // The subdirectory `name` (one component); nullopt when absent (removed). Failure otherwise.
  std::optional<BeneathDir> subdir(const char* name, std::string_view what) const;
  // Reads the file `name` into *out (its old content replaced, its capacity reused); false when
  // absent. Failure when unreadable or larger than max_bytes.
  bool read(const char* name, std::string* out, std::string_view what, size_t max_bytes = 64 * 1024) const;
  // Appends the names of the subdirectories to *names (unsorted) and returns true; false when the
  // directory was removed. Failure when it cannot be listed: a listing cut short would hide cgroups.
  bool subdirs(std::vector<std::string>* names, std::string_view what) const;

 private:
  friend class HostFs;
  BeneathDir(int fd, unsigned long dev, bool cgroupfs) : fd_(fd), dev_(dev), cgroupfs_(cgroupfs) {}
  int open_entry(const char* name, int flags) const;
  int fd_;
  unsigned long dev_;  // the base's device: the fallback's mount-crossing check
  bool cgroupfs_;      // the base is a cgroup mount: the fallback checks entries are cgroupfs
};

// A host directory held open, whose files are read by paths relative to it: the directory's own
// path is walked once, then only the short rest (the driver's GPU directory: two files per GPU on
// every GPU start). Symlinks are followed, as HostFs::read follows them: this is for kernel and
// driver directories, never for paths a container can influence (BeneathDir is for those).
// Move-only; closes its descriptor.
class HostDir {
 public:
  HostDir(HostDir&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)) { o.fd_ = -1; }
  HostDir& operator=(HostDir&&) = delete;
  HostDir(const HostDir&) = delete;
  ~HostDir();

  // The file `rel` below the directory ("0004:04:00.0/information"); nullopt when absent, as
  // HostFs::read.
  std::optional<std::string> read(std::string_view rel, size_t max_bytes = 64 * 1024,
                                  ReadEnd end = ReadEnd::at_eof) const;
  // The directory's entries, sorted, without "." and "..". Failure when it cannot be listed.
  std::vector<std::string> names() const;
  // names() with each entry's inode number as the directory lists it (getdents64's d_ino).
  std::vector<std::pair<std::string, uint64_t>> entries() const;
  // The directory's path on this machine, for messages.
  const std::string& path() const { return path_; }

 private:
  friend class HostFs;
  HostDir(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_;
  std::string path_;
};

class HostFs {
 public:
  explicit HostFs(std::string root = "/");

  const std::string& root() const { return root_; }
  bool is_real_root() const { return root_ == "/"; }
  // The path on this machine for a host path ("/proc/self/mountinfo" -> "<root>/proc/self/mountinfo").
  std::string resolve(std::string_view host_path) const;

  // Reads a small file whole; nullopt when absent. Failure when larger than max_bytes (a hostile
  // or broken file cannot balloon us).
  std::optional<std::string> read(std::string_view host_path, size_t max_bytes = 64 * 1024,
                                  ReadEnd end = ReadEnd::at_eof) const;
  // At most the first `max_bytes` of a file, with one read(2), whatever its size (a program's
  // first bytes tell a script from an ELF file); nullopt when absent. Failure otherwise.
  std::optional<std::string> read_head(std::string_view host_path, size_t max_bytes) const;
  // Same, but absence is a Failure (ENOENT) naming the file.
  std::string read_required(std::string_view host_path, size_t max_bytes = 64 * 1024) const;
  // The inode number of the entry itself (lstat: a symlink is not followed); nullopt when absent.
  // Failure otherwise.
  std::optional<uint64_t> entry_inode(std::string_view host_path) const;
  // Names in a directory, sorted; nullopt when the directory is absent.
  std::optional<std::vector<std::string>> list_dir(std::string_view host_path) const;
  // The directory, held open for reads relative to it; nullopt when absent.
  std::optional<HostDir> open_dir(std::string_view host_path) const;

  // Beneath the directory `base` (a cgroup mount), `rel` is opened with no "..", no symlinks, no
  // magic links and no mount crossing (openat2 RESOLVE_BENEATH where the kernel has it; otherwise a
  // component walk that checks the same, and that a cgroup mount's files are on cgroupfs, as
  // runc's cgroup file opener does). Cgroup paths come from /proc/<pid>/cgroup, which a container
  // can influence. A path that breaks these rules is a Failure (EINVAL, ELOOP, EXDEV).
  std::optional<std::string> read_beneath(std::string_view base, std::string_view rel,
                                          size_t max_bytes = 64 * 1024, ReadEnd end = ReadEnd::at_eof) const;
  // Writes text to an existing file beneath base with one write(2); Failure naming the file.
  void write_beneath(std::string_view base, std::string_view rel, std::string_view text) const;
  bool dir_exists_beneath(std::string_view base, std::string_view rel) const;
  // Subdirectory names, sorted; nullopt when `rel` is absent.
  std::optional<std::vector<std::string>> list_subdirs_beneath(std::string_view base, std::string_view rel) const;
  // The directory `rel` beneath `base`, opened once for BeneathDir's relative opens; nullopt when
  // absent.
  std::optional<BeneathDir> open_dir_beneath(std::string_view base, std::string_view rel) const;

 private:
  int open_beneath(std::string_view base, std::string_view rel, int flags) const;
  std::string root_;
};

// Test seams, for tests/ and nothing else: inert unless a test sets them; no option, file or
// variable of the program reaches them.
// - A write fault: called with the full path before every write_beneath; a non-zero return is that
//   write's errno (nothing is written). It drives the real patch code through the errors only a
//   real kernel gives (EACCES, EINVAL, EBUSY, ESRCH) at any chosen step.
using WriteFaultForTests = std::function<int(const std::string& path)>;
void set_write_fault_for_tests(WriteFaultForTests fault);
// - Skip openat2, as on kernels before 5.6, so the fallback walk is tested on this kernel too.
void set_openat2_disabled_for_tests(bool disabled);

}  // namespace gnh
