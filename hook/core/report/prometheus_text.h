// node_exporter textfile-collector output: the exposition text format (host/atomic_file.h writes it).
#pragma once

#include <string>
#include <vector>

namespace gnh {

struct Metric {
  std::string name;   // gpu_numa_hook_...
  std::string help;   // one line
  std::string type;   // "gauge" (the only type `check` exports: each run replaces the file)
  double value = 0;
};

// "# HELP name help\n# TYPE name type\nname value\n" per metric, in the given order.
std::string render_metrics(const std::vector<Metric>& metrics);

}  // namespace gnh
