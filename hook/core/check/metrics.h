// The metrics one `check` run exports for node_exporter's textfile collector (names in
// docs/operate.md). Pure.
#pragma once

#include <string>
#include <vector>

#include "check/result.h"
#include "report/prometheus_text.h"

namespace gnh {

// r == nullptr: the check itself failed; only the success flag (0) and the timestamp are exported,
// so an alert can tell "no problems" from "no answer", and gpu_numa_hook_config_valid 0 when what
// failed was the config (config_unusable: not TOML, unreadable).
std::vector<Metric> check_metrics(const CheckResult* r, double now_seconds, bool config_unusable = false);

// The counters (type counter, names ending _total): gpu_numa_hook_decisions_total, one sample per
// action of kCountedDecisions, and the NRI plugin's injections and failed calls, each where known.
// Apart from check_metrics so that the gauges above keep their places for readers that count lines.
std::vector<Metric> counter_metrics(const CheckResult& r);

// gpu_numa_hook_unprotected_gpu_containers: running GPU containers without our hook. check writes
// it after the build info, so the lines before keep their places for readers that count them.
Metric unprotected_metric(size_t count);

// gpu_numa_hook_mig_gpus_unknown_instances: GPUs in MIG state whose GPU instances' memory nodes are
// unknown (no current NVML cache, or one for another layout). Written after the unprotected gauge.
Metric mig_unknown_metric(size_t count);

// gpu_numa_hook_build_info{version="...",revision="..."} 1: which build wrote the file, so a
// fleet's versions show in one query.
Metric build_info_metric(const std::string& version, const std::string& revision);

}  // namespace gnh
