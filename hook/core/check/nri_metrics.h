// The NRI plugin's metrics, one definition for both places that export them: check's textfile
// (node_exporter) and gpu-numa-nri's own HTTP endpoint (--metrics-address). Same names, same help,
// same values from the same state, so an alert written for one works on the other. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "check/nri_plugin_state.h"
#include "decide/decision_counts.h"
#include "report/prometheus_text.h"

namespace gnh {

// The registrations and drops over the plugin's life, as the state file records them.
struct NriConnectionCounts {
  unsigned long long connects = 0;
  unsigned long long drops = 0;
  std::string last_drop_reason;  // "" never dropped
};

// gpu_numa_hook_nri_plugin_connected: 1 registered and serving (nri_not_connected's verdict).
Metric nri_connected_metric(bool connected);
// gpu_numa_hook_nri_hook_present: 1 when the hook the plugin injects is usable on the node.
Metric nri_hook_present_metric(bool present);
// gpu_numa_hook_decisions_total{action}: one sample per kCountedDecisions.
std::vector<Metric> decision_metrics(const DecisionCounts& d);
// gpu_numa_hook_nri_injections_total, gpu_numa_hook_nri_calls_failed_total.
std::vector<Metric> nri_call_metrics(const NriCallCounts& c);
// gpu_numa_hook_nri_connects_total, gpu_numa_hook_nri_drops_total and the info-style gauge
// gpu_numa_hook_nri_last_drop_info{reason} 1, whose label is a class (nri_drop_reason_class), never
// the free text: one series per class, not one per message.
std::vector<Metric> nri_connection_metrics(const NriConnectionCounts& c);

// The few kinds of drop: "none", "runtime_closed", "shutdown", "timeout", "protocol_error",
// "io_error", "other". The plugin's log has the full text.
const char* nri_drop_reason_class(std::string_view reason);

// What gpu-numa-nri serves about itself at `now` (unix seconds): the verdicts as check computes
// them (the plugin is alive by definition: it answers), its counts, and the hook's decision
// counts where they could be read.
std::vector<Metric> nri_plugin_metrics(const NriPluginState& s, const std::optional<DecisionCounts>& decisions,
                                       long long now);

}  // namespace gnh
