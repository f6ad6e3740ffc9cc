// The metrics one `check` run exports for node_exporter's textfile collector (names in
// docs/operate.md). Pure.
#pragma once

#include <vector>

#include "check/result.h"
#include "report/prometheus_text.h"

namespace gnh {

// r == nullptr: the check itself failed; only the success flag (0) and the timestamp are exported,
// so an alert can tell "no problems" from "no answer", and gpu_numa_hook_config_valid 0 when what
// failed was the config (config_unusable: not TOML, unreadable).
std::vector<Metric> check_metrics(const CheckResult* r, double now_seconds, bool config_unusable = false);

}  // namespace gnh
