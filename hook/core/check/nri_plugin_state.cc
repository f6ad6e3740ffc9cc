#include "check/nri_plugin_state.h"

#include <nlohmann/json.hpp>

namespace gnh {

std::string format_nri_state(const NriPluginState& s) {
  nlohmann::ordered_json j;
  j["connected"] = s.connected;
  j["pid"] = s.pid;
  j["pid_namespace"] = s.pid_namespace;
  j["mode"] = s.mode;
  j["socket"] = s.socket;
  j["runtime"] = s.runtime;
  j["since"] = s.since;
  j["heartbeat"] = s.heartbeat;
  j["last_error"] = s.last_error;
  j["hook_path"] = s.hook_path;
  j["hook_present"] = s.hook_present;
  j["hook_problem"] = s.hook_problem;
  return j.dump(2) + "\n";
}

std::optional<NriPluginState> parse_nri_state(std::string_view text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  NriPluginState s;
  try {
    s.connected = j.at("connected").get<bool>();
    s.pid = j.value("pid", 0L);
    s.pid_namespace = j.value("pid_namespace", "");
    s.mode = j.value("mode", "");
    s.socket = j.value("socket", "");
    s.runtime = j.value("runtime", "");
    s.since = j.value("since", "");
    s.heartbeat = j.value("heartbeat", 0LL);
    s.last_error = j.value("last_error", "");
    s.hook_path = j.value("hook_path", "");
    s.hook_present = j.value("hook_present", true);
    s.hook_problem = j.value("hook_problem", "");
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
  return s;
}

std::optional<std::string> nri_not_connected(const std::optional<NriPluginState>& state, const NriPluginLiveness& live) {
  const std::string head = "NRI plugin not connected: containerd starts GPU containers without the hook; ";
  if (!state) return head + "gpu-numa-nri has never run on this node (no " + kNriStatePath + ")";
  if (live.same_pid_namespace && !live.pid_alive)
    return head + "gpu-numa-nri (pid " + std::to_string(state->pid) + ") is gone; last state: " +
           (state->connected ? "connected to " + state->runtime : "disconnected");
  if (live.now - state->heartbeat > kNriStaleSeconds)
    return head + "gpu-numa-nri has not updated its state for " + std::to_string(live.now - state->heartbeat) +
           " s (it rewrites it every " + std::to_string(kNriHeartbeatSeconds) + " s): it is gone or stuck";
  if (!state->connected)
    return head + "gpu-numa-nri (pid " + std::to_string(state->pid) + ") is disconnected since " + state->since +
           (state->last_error.empty() ? "" : ": " + state->last_error);
  return std::nullopt;
}

std::optional<std::string> nri_hook_missing(const std::optional<NriPluginState>& state) {
  if (!state || state->hook_present) return std::nullopt;
  return "NRI plugin injects no hook: " + state->hook_path + " is not usable on this node (" +
         (state->hook_problem.empty() ? std::string("missing") : state->hook_problem) +
         "), so gpu-numa-nri starts GPU containers without it; put the hook back there (the DaemonSet's init "
         "container copies it) or point --hook at it";
}

}  // namespace gnh
