// The metrics one `check` run exports for node_exporter's textfile collector (names in
// docs/CHECK.md). Pure.
#pragma once

#include <string>
#include <vector>

#include "check/result.h"
#include "report/prometheus_text.h"

namespace gnh {

// r == nullptr: the check itself failed; only the success flag (0) and the timestamp are exported,
// so an alert can tell "no problems" from "no answer".
std::vector<Metric> check_metrics(const CheckResult* r, double now_seconds);

// gpu_numa_hook_build_info{version="...",revision="..."} 1: which build wrote the file, so a
// fleet's versions show in one query.
Metric build_info_metric(const std::string& version, const std::string& revision);

}  // namespace gnh
