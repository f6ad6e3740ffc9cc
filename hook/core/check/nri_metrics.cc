#include "check/nri_metrics.h"

namespace gnh {

Metric nri_connected_metric(bool connected) {
  return {"gpu_numa_hook_nri_plugin_connected",
          "1 when the NRI plugin is connected to the runtime; 0: GPU containers start without the hook", "gauge",
          connected ? 1.0 : 0.0};
}

Metric nri_hook_present_metric(bool present) {
  return {"gpu_numa_hook_nri_hook_present",
          "1 when the hook the NRI plugin injects is on the node; 0: GPU containers start without it", "gauge",
          present ? 1.0 : 0.0};
}

std::vector<Metric> decision_metrics(const DecisionCounts& d) {
  std::vector<Metric> m;
  for (const char* action : kCountedDecisions)
    m.push_back({"gpu_numa_hook_decisions_total",
                 "Container starts the hook did not simply allow, by what it did (error: a hook failure that let the "
                 "container start), since boot",
                 "counter", static_cast<double>(d.of(action)), {{"action", action}}});
  return m;
}

std::vector<Metric> nri_call_metrics(const NriCallCounts& c) {
  return {{"gpu_numa_hook_nri_injections_total", "Containers the NRI plugin added the hook to, since the plugin started",
           "counter", static_cast<double>(c.injections)},
          {"gpu_numa_hook_nri_calls_failed_total",
           "Container calls the NRI plugin answered with no adjustment because of its own failure, since it started",
           "counter", static_cast<double>(c.calls_failed)},
          {"gpu_numa_hook_nri_calls_stuck",
           "Container calls abandoned at their deadline and still stuck in a host read (a hung driver or cgroup file?); "
           "at " + std::to_string(kNriMaxStuckCalls) + " every later call is refused",
           "gauge", static_cast<double>(c.calls_stuck)}};
}

std::vector<Metric> nri_connection_metrics(const NriConnectionCounts& c) {
  return {{"gpu_numa_hook_nri_connects_total", "Registrations the runtime completed, since the NRI plugin started",
           "counter", static_cast<double>(c.connects)},
          {"gpu_numa_hook_nri_drops_total",
           "Connections of the NRI plugin that ended without its asking, since it started", "counter",
           static_cast<double>(c.drops)},
          {"gpu_numa_hook_nri_last_drop_info",
           "Why the NRI plugin's last connection was dropped, as a class (its log has the text); none: never", "gauge",
           1.0, {{"reason", nri_drop_reason_class(c.last_drop_reason)}}}};
}

const char* nri_drop_reason_class(std::string_view r) {
  auto has = [&](std::string_view s) { return r.find(s) != std::string_view::npos; };
  // Order matters: "closed the connection in the middle of a frame" is a close, "stopped in the
  // middle of a frame (... nothing for N ms)" a timeout.
  if (r.empty()) return "none";
  if (has("asked the plugin to shut down")) return "shutdown";
  if (has("protocol error")) return "protocol_error";
  if (has("closed the connection")) return "runtime_closed";
  if (has("did not configure") || has("did not read our answer within") || has("nothing for ")) return "timeout";
  if (has("failed: ")) return "io_error";
  return "other";
}

std::vector<Metric> nri_plugin_metrics(const NriPluginState& s, const std::optional<DecisionCounts>& decisions,
                                       long long now) {
  NriPluginLiveness alive;
  alive.same_pid_namespace = true;
  alive.pid_alive = true;
  alive.lock_held = true;
  alive.now = now;
  std::vector<Metric> m = {nri_connected_metric(!nri_not_connected(s, alive)),
                           nri_hook_present_metric(!nri_hook_missing(s))};
  if (s.calls)
    for (Metric& c : nri_call_metrics(*s.calls)) m.push_back(std::move(c));
  for (Metric& c : nri_connection_metrics({s.connects, s.drops, s.last_drop_reason})) m.push_back(std::move(c));
  if (decisions)
    for (Metric& c : decision_metrics(*decisions)) m.push_back(std::move(c));
  return m;
}

}  // namespace gnh
