// Finds and reads the configuration file; parsing is config/config.h's.
#pragma once

#include <optional>
#include <string>

#include "config/config.h"
#include "host/fs/host_fs.h"

namespace gnh {

// Where the config is and its text: the explicit --config file as given (must exist: else a
// failure), else the default path beneath the host root (text nullopt when absent).
struct ConfigFile {
  std::string path;
  std::optional<std::string> text;
};
ConfigFile read_config_file(const HostFs& fs, const std::optional<std::string>& explicit_path);

// The explicit --config file as given (must exist), else the default path beneath the host root
// (absent = built-in defaults). Problems the parser ignored are in Config::problems.
Config load_config(const HostFs& fs, const std::optional<std::string>& explicit_path);

}  // namespace gnh
