// The paths install works with: the host's, as install-state.json records them, and this machine's,
// beneath --host-root DIR; and the default path of each engine's file.
#pragma once

#include <string>

#include "cli/commands.h"

namespace gnh::install_cli {

// --host-root DIR: the host's paths (defaults, --runtime-config, --nri-plugin-dir, what
// install-state.json records) are DIR's on this machine. install-state.json keeps host paths, so
// the same state undoes from / on the host and from DIR here.
struct HostRoot {
  std::string dir;  // "" = this machine's /
  std::string machine(const std::string& host) const { return dir + host; }
  std::string host(const std::string& machine) const {
    return !dir.empty() && machine.compare(0, dir.size() + 1, dir + "/") == 0 ? machine.substr(dir.size()) : machine;
  }
};
extern HostRoot g_root;  // one install per process

// The host's default path of each engine's file; engine_file() is where it is on this machine.
std::string default_config_of(const std::string& runtime);
std::string engine_file(const InstallCommandOptions& o, const std::string& runtime);
// Our config: --config as given (as every subcommand takes it), else the default beneath DIR.
std::string our_config(const GlobalOptions& g);

}  // namespace gnh::install_cli
