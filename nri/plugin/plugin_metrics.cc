#include "plugin/plugin_metrics.h"

#include "base/error.h"
#include "check/nri_metrics.h"
#include "host/decide/decision_counter.h"

namespace gnh::nri {

std::string render_plugin_metrics(const NriPluginState& state, const HostFs& decisions_fs,
                                  std::optional<size_t> unprotected, long long now, const Metric& build_info) {
  std::optional<DecisionCounts> decisions;
  try {
    decisions = read_decision_counts(decisions_fs);
  } catch (const Error&) {
    // left out
  }
  std::vector<Metric> m = nri_plugin_metrics(state, decisions, now);
  m.push_back(build_info);
  if (unprotected) m.push_back(unprotected_metric(*unprotected));
  return render_metrics(m);
}

}  // namespace gnh::nri
