// What the plugin's /metrics says: its state (connection, hook, calls), the hook's decision
// counters from this node, and the running GPU containers without the hook.
#pragma once

#include <optional>
#include <string>

#include "check/metrics.h"
#include "check/nri_plugin_state.h"
#include "host/fs/host_fs.h"

namespace gnh::nri {

// `unprotected`: the last scan's count, nullopt when none worked (then the gauge is left out, not 0).
// `decisions_fs`: where the hook's decision counters are read (a counter file that cannot be read
// is left out, as check leaves it out: it is not a 0).
std::string render_plugin_metrics(const NriPluginState& state, const HostFs& decisions_fs,
                                  std::optional<size_t> unprotected, long long now, const Metric& build_info);

}  // namespace gnh::nri
