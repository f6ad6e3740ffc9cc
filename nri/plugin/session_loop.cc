#include "plugin/session_loop.h"

#include <unistd.h>

#include <algorithm>
#include <string>

#include "plugin/connection.h"
#include "plugin/session.h"

namespace gnh::nri {

void run_session_loop(const PluginOptions& options, GpuNumaPlugin& plugin, BoundedCall& bounded,
                      std::atomic<uint64_t>& calls_failed, StateFile& state, PluginLog& log,
                      std::atomic<bool>& stop) {
  auto conn_log = [&](const char* level, const char* action, const std::string& msg) {
    log.plugin_event("nri-connect", level, action, msg);
  };
  const std::string& socket_path = options.socket_path;
  const std::string& name = options.name;
  const std::string& idx = options.idx;
  int preset_fd = options.preset_fd;
  ConnectionLimits limits;
  int backoff_ms = 500;
  std::string last_dial_error;
  auto pause = [&] {
    for (int waited = 0; waited < backoff_ms && !stop; waited += 100) ::usleep(100 * 1000);
    backoff_ms = std::min(backoff_ms * 2, 10000);
  };
  while (!stop) {
    if (state.superseded_by()) break;
    std::string error;
    int fd = preset_fd >= 0 ? preset_fd : dial_unix(socket_path, &error);
    if (fd < 0) {
      if (error != last_dial_error) conn_log("warn", "retry", error + "; retrying with backoff (up to 10 s) until it answers");
      last_dial_error = error;
      state.disconnected(error);
      pause();
      continue;
    }
    last_dial_error.clear();
    conn_log("info", "connecting",
             (preset_fd >= 0 ? "connected on fd " + std::to_string(fd) + " (pre-registered)" : "connected to " + socket_path) +
                 "; registering as " + idx + "-" + name);
    Session session(&plugin, &bounded, &calls_failed);
    limits.registered_at_configure = preset_fd >= 0;
    auto end = run_connection(fd, session, name, idx, limits, [&] {
      conn_log("info", "connected", "registered as " + idx + "-" + name + " with " + session.runtime() +
                                         ": GPU containers get the hook at createRuntime");
      state.registered(session.runtime());
      if (state.superseded_by()) stop = true;  // a newer pre-registered instance serves the runtime
    }, stop);
    // Our own stop is no drop; the runtime's Shutdown, a close, a protocol error or a timeout is.
    state.ended(end.why, !stop);
    const bool was_preset = preset_fd >= 0;
    preset_fd = -1;  // the runtime's fd is closed now; from here on we dial, like an external plugin
    std::string next = stop ? "exiting"
                       : was_preset
                           ? "the runtime launches a pre-registered plugin only at its own start, so this one keeps "
                             "protecting by dialing " + socket_path + " as an external plugin, with backoff"
                           : "reconnecting";
    conn_log(stop ? "info" : "warn", "disconnected",
             end.why + " (after " + std::to_string(session.calls_handled()) + " calls" +
                 (session.calls_failed() ? ", " + std::to_string(session.calls_failed()) + " answered with no adjustment" : "") +
                 "); " + next);
    if (was_preset) state.set_mode("pre-registered, dialing after its connection dropped", socket_path);
    if (end.was_registered) backoff_ms = 500;
    pause();
  }
  if (long other = state.superseded_by())
    conn_log("info", "exit", "another gpu-numa-nri (pid " + std::to_string(other) +
                                 ") now writes the state file: the runtime started a new pre-registered plugin; "
                                 "this one, dialing since its own connection dropped, exits");
}

}  // namespace gnh::nri
