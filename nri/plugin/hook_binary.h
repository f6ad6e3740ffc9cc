// Whether the hook the plugin injects is there for runc to run. runc runs that host path itself,
// and a hook it cannot exec fails the container ("fork/exec ...: no such file or directory"):
// the plugin must never add a hook that is not there. One stat and one access(X_OK) per probe.
// In the DaemonSet the hook's host directory is mounted at the same path (read-only).
#pragma once

#include <string>

namespace gnh::nri {

struct HookBinary {
  std::string path;
  bool usable = false;
  std::string problem;  // why not: "No such file or directory", "not a regular file", "not executable"
  bool operator==(const HookBinary&) const = default;
};

HookBinary probe_hook_binary(const std::string& path);

}  // namespace gnh::nri
