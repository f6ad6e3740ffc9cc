#include "report/prometheus_text.h"


#include <cmath>
#include <cstdio>

#include "base/error.h"

namespace gnh {

namespace {

// Whole numbers without a fraction ("3", "1763700000"), anything else with full precision.
std::string format_value(double v) {
  char buf[64];
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// HELP text escapes backslash and newline (exposition format).
std::string escape_help(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

// Label values escape backslash, double quote and newline (exposition format).
std::string escape_label(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

}  // namespace

std::string render_metrics(const std::vector<Metric>& metrics) {
  std::string s;
  for (size_t k = 0; k < metrics.size(); ++k) {
    const Metric& m = metrics[k];
    if (k == 0 || metrics[k - 1].name != m.name) {
      s += "# HELP " + m.name + " " + escape_help(m.help) + "\n";
      s += "# TYPE " + m.name + " " + m.type + "\n";
    }
    s += m.name;
    for (size_t i = 0; i < m.labels.size(); ++i)
      s += (i ? "," : "{") + m.labels[i].first + "=\"" + escape_label(m.labels[i].second) + "\"" +
           (i + 1 == m.labels.size() ? "}" : "");
    s += " " + format_value(m.value) + "\n";
  }
  return s;
}

}  // namespace gnh
