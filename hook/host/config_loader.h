// Finds and reads the configuration file; parsing is config/config.h's.
#pragma once

#include <optional>
#include <string>

#include "config/config.h"
#include "host/host_fs.h"

namespace gnh {

// The explicit --config file as given (must exist), else the default path beneath the host root
// (absent = built-in defaults).
Config load_config(const HostFs& fs, const std::optional<std::string>& explicit_path);

}  // namespace gnh
