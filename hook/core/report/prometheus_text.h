// node_exporter textfile-collector output: the exposition text format (host/fs/atomic_file.h writes it).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gnh {

struct Metric {
  std::string name;   // gpu_numa_hook_...
  std::string help;   // one line
  std::string type;   // "gauge" (the only type `check` exports: each run replaces the file)
  double value = 0;
  // name="value" pairs after the name, in this order; values escaped as the format says.
  std::vector<std::pair<std::string, std::string>> labels = {};
};

// "# HELP name help\n# TYPE name type\nname{label="v"} value\n" per metric, in the given order.
std::string render_metrics(const std::vector<Metric>& metrics);

}  // namespace gnh
