// Whether the hook the plugin injects is one runc on the host can exec. runc runs that host path
// itself, and a hook it cannot exec fails the container ("fork/exec ...: no such file or
// directory"): the plugin must never add such a hook. So the path is judged as the host sees it:
// resolved through the host's root (--host-root; the DaemonSet mounts the node's / there),
// symlinks kept inside it; a regular file with an execute bit; not on a noexec mount; an ELF for
// this node's architecture, or a #! script.
#pragma once

#include <string>

namespace gnh::nri {

struct HookBinary {
  std::string path;
  bool usable = false;
  // why not, for operators: "No such file or directory", "not a regular file", "not executable
  // (mode 0644)", "on a noexec mount (/opt, /dev/sda3)", "built for aarch64, this node is x86_64"
  std::string problem;
  // Set when the probe could not look, for want of our own resources (a descriptor, memory:
  // probe_failure_is_ours): then `usable` and `problem` are the last verdict on this path, or
  // usable when there is none. Our shortage must not read as "the hook is gone" and stop the
  // injection: the hook stays as protective as it was. E.g. "Too many open files".
  std::string unchecked;
  bool operator==(const HookBinary&) const = default;
};

// `host_root`: where the host's / is in this process's view ("/" when not in a container). The
// host's mount table: our own when host_root is "/" (runc and we share the host's mount
// namespace), else <host_root>/proc/1/mountinfo (the host's init; the host's /proc reaches us
// inside that root). Cheap: a few syscalls, the table parsed again only when stale.
HookBinary probe_hook_binary(const std::string& path, const std::string& host_root = "/");

}  // namespace gnh::nri
