// Docker: the pure edit of daemon.json behind its engine (docker_daemon_json.cc), exposed for the
// unit tests. Docker has no drop-in directory: daemon.json itself is edited, every other key kept
// in its order (JSON has no comments to lose).
#pragma once

#include <string>
#include <string_view>

#include "install/config_edit.h"

namespace gnh {

// daemon.json ("" = missing): runtimes.gpu-numa = {path}; --set-default sets default-runtime.
// Uninstall removes our runtime, and puts o.restore_default back as default-runtime when it
// names ours (removes the key when "").
std::string edit_docker_daemon_json(std::string_view text, const std::string& file, const InstallOptions& o,
                                    EngineRuntimes* seen = nullptr);

}  // namespace gnh
