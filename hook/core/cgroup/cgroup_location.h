// Where a process's cpuset lives: parsers for /proc/<pid>/cgroup and /proc/self/mountinfo, and the
// choice between a v1 cpuset hierarchy and the v2 unified one. Pure: text in, location out.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gnh {

enum class CgroupVersion { v1, v2 };
const char* to_string(CgroupVersion v);

struct ProcCgroupLine {
  int hierarchy_id = 0;
  std::vector<std::string> controllers;  // empty for the v2 line "0::/path"
  std::string path;
};

struct MountInfoLine {
  std::string device;       // field 3: "major:minor" of the filesystem
  std::string root;         // field 4: the mount's root within its filesystem
  std::string mount_point;  // field 5, octal escapes decoded
  std::string fstype;
  std::string source;
  std::vector<std::string> mount_options;  // field 6, per mount: "rw", "noexec", "nosuid"...
  std::vector<std::string> super_options;
};

// Both return nullopt (with *why) on malformed lines: the kernel writes these files, so
// anything odd means we are not reading what we think.
std::optional<std::vector<ProcCgroupLine>> parse_proc_cgroup(std::string_view text, std::string* why = nullptr);
// Which mountinfo lines are built: all of them, or only cgroup and cgroup2 mounts (all that
// locate_cpuset reads; a node's mountinfo holds hundreds of others, and building each was most of
// a GPU start's cgroup lookup). Every line is checked for its shape either way.
enum class MountFilter { all, cgroup };
std::optional<std::vector<MountInfoLine>> parse_mountinfo(std::string_view text, std::string* why = nullptr,
                                                         MountFilter filter = MountFilter::all);

struct CpusetLocation {
  CgroupVersion version = CgroupVersion::v1;
  std::string mount_point;  // host path of the hierarchy's mount ("/sys/fs/cgroup/cpuset")
  std::string path;         // the cgroup beneath the mount ("/docker/3f2a"), "/" for the root
  bool noprefix = false;    // v1 mounted with -o noprefix: "mems", not "cpuset.mems"

  std::string display() const;  // "/sys/fs/cgroup/cpuset/docker/3f2a"
};

// Chooses the v1 cpuset hierarchy when one is mounted (hybrid hosts keep cpuset on v1), else the
// cgroup2 mount. Handles a mount whose root is not "/" (cgroup namespaces, bind mounts) by
// stripping that root from the process's path. nullopt with *why when no cpuset can be found or
// the path is unsafe ("..").
std::optional<CpusetLocation> locate_cpuset(const std::vector<ProcCgroupLine>& proc,
                                            const std::vector<MountInfoLine>& mounts,
                                            std::string* why = nullptr);

// The cgroups from the top of the hierarchy down to `path`, excluding the root itself:
// "/a/b/c" -> {"/a", "/a/b", "/a/b/c"}.
std::vector<std::string> cgroup_chain(std::string_view path);
std::string cgroup_parent(std::string_view path);

}  // namespace gnh
