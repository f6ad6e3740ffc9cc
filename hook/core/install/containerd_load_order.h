// containerd's files in the order containerd reads them (services/server/config/config.go
// LoadConfig): the main file, then each `imports` entry of each file read, breadth first, each
// file once; an entry is relative to its importing file's directory, a glob's matches sorted.
// One list for every reader of containerd's settings (install's engine edit, the NRI socket,
// status), so that none of them misses a setting made in an imported file. Pure: files come
// through a ConfigReader (engine_config.h).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "install/engine_config.h"

namespace gnh {

struct ContainerdLoadOrder {
  std::vector<std::string> files;  // main first; files `files` cannot read are left out
  // Absolute `imports` entries naming nothing under `root`: where the host's / is mounted
  // elsewhere (a DaemonSet's /host without --host-root), their files would be missed.
  std::set<std::string> unseen;
};

// `main` and what it imports, read through `files`. `root`: where the host's absolute paths in
// `imports` are ("" = here; --host-root). A Failure naming the file when one is not TOML (as
// containerd, which then does not start).
ContainerdLoadOrder containerd_load_order(const std::string& main, const ConfigReader& files,
                                          const std::string& root = "");

// The path an `imports` entry of `importer` names: relative entries against the importer's
// directory, absolute ones under `root`, cleaned as Go's filepath.Clean does.
std::string containerd_import_path(const std::string& importer, const std::string& entry,
                                   const std::string& root = "");

}  // namespace gnh
