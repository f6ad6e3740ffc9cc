// `check`'s view of the NRI plugin: its state file (check/nri_plugin_state.h) and whether its
// process is still there, read from this host.
#pragma once

#include <optional>
#include <string>

#include "check/nri_plugin_state.h"
#include "host/fs/host_fs.h"

namespace gnh {

struct NriPluginCheck {
  bool applicable = false;            // this node runs the NRI plugin (its state file exists)
  bool connected = false;             // registered and serving: counts as protecting
  bool connected_now = false;         // the file says connected, protecting or not (dropped recently)
  std::string runtime;                // "containerd 2.1.9" when connected
  unsigned long long connects = 0, drops = 0;  // over the plugin's life
  std::string last_drop_reason;               // "" never dropped
  std::optional<std::string> problem; // "NRI plugin not connected: ..." when applicable and not connected
  std::optional<std::string> hook_problem;  // "NRI plugin injects no hook: ..." (nri_hook_missing)
  std::optional<NriCallCounts> calls;       // the file's container counts, where it has them
  std::optional<std::string> stuck;         // "NRI plugin: N container call(s) stuck ..." (nri_calls_stuck)
  bool stuck_refuses_all = false;           // ... and so many that every call is refused
};

// `state_path` is a host path (kNriStatePath by default). A node where the plugin never ran (no
// file) is not an NRI node: nothing to report. The plugin's pid is checked only when check runs in
// its pid namespace on the real root; elsewhere the file's heartbeat decides.
NriPluginCheck check_nri_plugin(const HostFs& fs, const std::string& state_path);

}  // namespace gnh
