#include "check/nri_plugin_state.h"

#include <nlohmann/json.hpp>

#include <vector>

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
  j["connects"] = s.connects;
  j["drops"] = s.drops;
  j["last_connect"] = s.last_connect;
  j["connected_since"] = s.connected_since;
  j["last_drop"] = s.last_drop;
  j["last_drop_reason"] = s.last_drop_reason;
  j["recent_drops"] = s.recent_drops;
  if (s.calls) {
    j["injections"] = s.calls->injections;
    j["calls_failed"] = s.calls->calls_failed;
    j["calls_stuck"] = s.calls->calls_stuck;
  }
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
    s.connects = j.value("connects", 0ULL);
    s.drops = j.value("drops", 0ULL);
    s.last_connect = j.value("last_connect", 0LL);
    s.connected_since = j.value("connected_since", 0LL);
    s.last_drop = j.value("last_drop", 0LL);
    s.last_drop_reason = j.value("last_drop_reason", "");
    if (j.contains("recent_drops")) s.recent_drops = j.at("recent_drops").get<std::vector<long long>>();
    if (s.recent_drops.size() > kNriRecentDropsKept)
      s.recent_drops.erase(s.recent_drops.begin(), s.recent_drops.end() - long(kNriRecentDropsKept));
    if (j.contains("injections") && j.contains("calls_failed")) {
      if (!j.at("injections").is_number_unsigned() || !j.at("calls_failed").is_number_unsigned()) return std::nullopt;
      s.calls = NriCallCounts{j.at("injections").get<unsigned long long>(), j.at("calls_failed").get<unsigned long long>(),
                              j.value("calls_stuck", 0ULL)};  // absent in older plugins' files
    }
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
  return s;
}

void record_nri_drop(NriPluginState* s, long long now, const std::string& reason) {
  ++s->drops;
  s->last_drop = now;
  s->last_drop_reason = reason;
  s->connected_since = 0;
  s->recent_drops.push_back(now);
  std::erase_if(s->recent_drops, [&](long long t) { return now - t > kNriFlapWindowSeconds; });
  if (s->recent_drops.size() > kNriRecentDropsKept)
    s->recent_drops.erase(s->recent_drops.begin(), s->recent_drops.end() - long(kNriRecentDropsKept));
}

std::optional<std::string> nri_not_connected(const std::optional<NriPluginState>& state, const NriPluginLiveness& live) {
  const std::string head = "NRI plugin not connected: containerd starts GPU containers without the hook; ";
  if (!state) return head + "gpu-numa-nri has never run on this node (no " + kNriStatePath + ")";
  if (live.same_pid_namespace && !live.pid_alive)
    return head + "gpu-numa-nri (pid " + std::to_string(state->pid) + ") is gone; last state: " +
           (state->connected ? "connected to " + state->runtime : "disconnected");
  if (live.lock_held == false)
    return head + "gpu-numa-nri (pid " + std::to_string(state->pid) + ") is gone: no process holds its lock " +
           kNriStatePath + ".lock; last state: " + (state->connected ? "connected to " + state->runtime : "disconnected");
  if (live.now - state->heartbeat > kNriStaleSeconds)
    return head + "gpu-numa-nri has not updated its state for " + std::to_string(live.now - state->heartbeat) +
           " s (it rewrites it every " + std::to_string(kNriHeartbeatSeconds) + " s): it is gone or stuck";
  long long recent = 0;
  for (long long t : state->recent_drops)
    if (live.now - t <= kNriFlapWindowSeconds) ++recent;
  if (!state->connected)
    return head + "gpu-numa-nri (pid " + std::to_string(state->pid) + ") is disconnected since " + state->since +
           (state->last_error.empty() ? "" : ": " + state->last_error) +
           (recent >= kNriFlapDrops ? " (the runtime ended its connection " + std::to_string(recent) + " times in the last " +
                                          std::to_string(kNriFlapWindowSeconds / 60) + " min)"
                                    : "");
  const std::string last = state->last_drop_reason.empty() ? "" : " (last: " + state->last_drop_reason + ")";
  if (recent >= kNriFlapDrops)
    return "NRI plugin keeps being dropped: the runtime ended its connection " + std::to_string(recent) +
           " times in the last " + std::to_string(kNriFlapWindowSeconds / 60) + " min" + last +
           "; GPU containers created while it is away start without the hook (gpu-numa-nri's log, the runtime's log)";
  const long long up = state->connected_since > 0 ? live.now - state->connected_since : 0;
  if (recent > 0 && up < kNriSettleSeconds)
    return "NRI plugin not settled: it registered again " + std::to_string(up) + " s ago after being dropped" + last +
           "; counted as protecting once it stays registered for " + std::to_string(kNriSettleSeconds) + " s";
  return std::nullopt;
}

std::optional<std::string> nri_calls_stuck(const std::optional<NriPluginState>& state, bool* all_refused) {
  *all_refused = false;
  if (!state || !state->calls || state->calls->calls_stuck == 0) return std::nullopt;
  const unsigned long long n = state->calls->calls_stuck;
  *all_refused = n >= kNriMaxStuckCalls;
  return "NRI plugin: " + std::to_string(n) + " container call(s) stuck in host reads past their deadline (a hung " +
         "driver or cgroup file? the plugin's log names the container); those containers started without the hook, " +
         (*all_refused ? std::string("and every GPU container now does until one of the reads returns")
                       : "later ones still get it while fewer than " + std::to_string(kNriMaxStuckCalls) + " are stuck");
}

std::optional<std::string> nri_hook_missing(const std::optional<NriPluginState>& state) {
  if (!state || state->hook_present) return std::nullopt;
  return "NRI plugin injects no hook: " + state->hook_path + " is not usable on this node (" +
         (state->hook_problem.empty() ? std::string("missing") : state->hook_problem) +
         "), so gpu-numa-nri starts GPU containers without it; put the hook back there (the DaemonSet's init "
         "container copies it) or point --hook at it";
}

}  // namespace gnh
