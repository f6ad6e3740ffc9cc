// install's guard on --config: it must name gpu-numa-hook's own config, not the engine's file.
#pragma once

#include <string>

namespace gnh::install_cli {

// --config must name gpu-numa-hook's own file. nvidia-ctk's --config is the engine's file, and that
// habit would write our [runtime] into containerd's config: refused before anything is written,
// by path (the engine's file itself) and by content (TOML whose top level has only our tables).
// Problems the hook merely ignores (a typo in a key) do not stop install: registering the hook
// protects the node with every valid key honoured, where refusing would leave it unprotected;
// they are printed loudly instead.
void vet_our_config(const std::string& ours, const std::string& engine_file, const std::string& runtime);

}  // namespace gnh::install_cli
