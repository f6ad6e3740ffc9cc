// node_exporter textfile-collector output: the exposition text format, written so the collector
// never sees a half-written file.
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

// Writes a temp file in the same directory, fsyncs it, makes it world-readable and renames it
// over `path` (rename is atomic within one filesystem). Failure naming the file and errno.
// `path` is a path on this machine, taken as given like --config.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace gnh
