// The plugin's life with the runtime: dial (or take the pre-registered connection), register,
// serve until the connection ends, say why, and dial again with backoff (500 ms doubling to 10 s;
// back to 500 ms after a registered connection). A pre-registered plugin whose connection drops
// dials the socket from then on, as an external one, and steps aside for a newer instance.
#pragma once

#include <atomic>
#include <cstdint>

#include "plugin/bounded_call.h"
#include "plugin/gpu_numa_plugin.h"
#include "plugin/plugin_log.h"
#include "plugin/plugin_options.h"
#include "plugin/state_file.h"

namespace gnh::nri {

// Until `stop`, or until another instance owns the state file. `calls_failed` counts, over every
// connection, the calls answered with no adjustment.
void run_session_loop(const PluginOptions& options, GpuNumaPlugin& plugin, BoundedCall& bounded,
                      std::atomic<uint64_t>& calls_failed, StateFile& state, PluginLog& log,
                      std::atomic<bool>& stop);

}  // namespace gnh::nri
