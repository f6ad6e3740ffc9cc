// A host path opened through the host's root as this process sees it (the DaemonSet's /host, or
// "/"), symlinks followed component by component and clamped to that root, as chroot would:
// "/opt/x -> /usr/x" and "../../.." never leave it. Not openat2(RESOLVE_IN_ROOT): the probe
// needs the resolved host path itself, to find its mount in the host's mount table.
#pragma once

#include <string>

namespace gnh::nri {

class ResolvedPath {
 public:
  ResolvedPath() = default;
  ResolvedPath(ResolvedPath&& o) noexcept;
  ResolvedPath& operator=(ResolvedPath&&) = delete;
  ~ResolvedPath();

  int error = 0;           // errno of the failed step, 0 when resolved
  std::string host_path;   // the path on the host after every symlink ("/opt/gnh/bin/gpu-numa-hook")
  int fd = -1;             // O_PATH, the final component itself (never followed)
  int parent_fd = -1;      // O_PATH, its directory (-1 when the path is the root itself)
  std::string name;        // the final component, to open it for reading beside `parent_fd`
};

ResolvedPath resolve_in_root(const std::string& root, const std::string& path);

}  // namespace gnh::nri
