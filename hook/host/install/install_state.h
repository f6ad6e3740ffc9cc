// install-state.json: what install did to each engine (install/engine_config.h, InstallRecord),
// so that --uninstall undoes exactly that, whatever else changed in the files in between; and
// every other registration install writes (podman, crio, nvidia-legacy, nri, crio-nri under their
// --runtime name, boot gates as boot-gate:<service>), so --uninstall --all leaves nothing of ours.
// Paths are the host's (without --host-root's DIR), as the package's removal sees them. It lives
// beside our config (the file --config names: /etc/gpu-numa-hook/install-state.json by default),
// so a DaemonSet that names the host's config keeps its state on the host too.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "install/engine_config.h"

namespace gnh {

class InstallState {
 public:
  // Reads <dir of our_config>/install-state.json (absent: empty). Failure when it does not parse.
  explicit InstallState(const std::string& our_config);
  std::optional<InstallRecord> get(const std::string& engine) const;
  void put(const std::string& engine, const InstallRecord& r) { records_[engine] = r; }
  void forget(const std::string& engine) { records_.erase(engine); }
  // The engines recorded, in the file's (sorted) order.
  std::vector<std::string> engines() const {
    std::vector<std::string> e;
    for (const auto& [name, r] : records_) e.push_back(name);
    return e;
  }
  // The text the file will hold ("" when no record is left: the file goes).
  std::string text() const;
  // What the file holds: as read, then as last saved (so a later save compares with the disk).
  const std::optional<std::string>& before() const { return before_; }
  void saved(const std::string& text) { before_ = text.empty() ? std::nullopt : std::optional<std::string>(text); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::optional<std::string> before_;
  std::map<std::string, InstallRecord> records_;
};

}  // namespace gnh
