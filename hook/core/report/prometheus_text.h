// node_exporter textfile-collector output: the exposition text format (host/fs/atomic_file.h writes it).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gnh {

struct Metric {
  std::string name;   // gpu_numa_hook_...
  std::string help;   // one line
  // "gauge" (check's findings: each run replaces the file), or "counter" (name ending _total: counts
  // kept by the hook and the NRI plugin since boot or start, exported by check as they are).
  std::string type;
  double value = 0;
  // name="value" pairs after the name, in this order; values escaped as the format says.
  std::vector<std::pair<std::string, std::string>> labels = {};
};

// "# HELP name help\n# TYPE name type\nname{label="v"} value\n" per metric, in the given order; a
// metric right after one of the same name (another label value) adds only its sample line, as the
// format allows one HELP and TYPE per name.
std::string render_metrics(const std::vector<Metric>& metrics);

}  // namespace gnh
