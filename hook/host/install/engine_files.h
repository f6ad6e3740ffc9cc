// install's host side for the engine edits (install/engine_config.h): the engines' files as they
// are on this machine, which containerd is installed, where a runtime binary is.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "install/engine_config.h"

namespace gnh {

// Files read whole (up to 4 MiB), globs by glob(3) (sorted), existence by stat(2).
class HostConfigReader final : public ConfigReader {
 public:
  std::optional<std::string> read(const std::string& path) const override;
  bool exists(const std::string& path) const override;
  std::vector<std::string> glob(const std::string& pattern) const override;
};

// `containerd --version` of the containerd in a fixed PATH (the one a node's systemd unit runs),
// major 0 when there is none or it says nothing we can read. Waits at most 10 s.
ContainerdRelease installed_containerd();

// A runtime named in an engine's config ("nvidia-container-runtime") as the absolute path the
// shim would run: looked up in the shim's fixed PATH (host/runtime/next_runtime.h) under `root`; the name
// unchanged when it is absolute or not found.
std::string absolute_runtime(const std::string& name, const std::string& root);

}  // namespace gnh
