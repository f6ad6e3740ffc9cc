#include "report/prometheus_text.h"

#include <doctest/doctest.h>


using namespace gnh;

TEST_CASE("exposition format: HELP, TYPE, then the sample - whole numbers without a fraction") {
  std::string text = render_metrics({{"a_total", "Things\nwith a \\ newline", "gauge", 3},
                                     {"b_seconds", "Time", "gauge", 1763700000},
                                     {"c_ratio", "Half", "gauge", 0.5}});
  CHECK(text ==
        "# HELP a_total Things\\nwith a \\\\ newline\n# TYPE a_total gauge\na_total 3\n"
        "# HELP b_seconds Time\n# TYPE b_seconds gauge\nb_seconds 1763700000\n"
        "# HELP c_ratio Half\n# TYPE c_ratio gauge\nc_ratio 0.5\n");
}

TEST_CASE("exposition format: labels in order, their values escaped") {
  Metric m{"x_info", "Build", "gauge", 1, {{"version", "1.2.3"}, {"revision", "v1-2-g\"a\\b\nc"}}};
  CHECK(render_metrics({m}) ==
        "# HELP x_info Build\n# TYPE x_info gauge\nx_info{version=\"1.2.3\",revision=\"v1-2-g\\\"a\\\\b\\nc\"} 1\n");
}

TEST_CASE("exposition format: one HELP and TYPE per family - a counter's label values follow as samples") {
  std::vector<Metric> m = {{"d_total", "Decisions", "counter", 2, {{"action", "patch"}}},
                           {"d_total", "Decisions", "counter", 0, {{"action", "refuse"}}},
                           {"e_total", "Other", "counter", 5}};
  CHECK(render_metrics(m) ==
        "# HELP d_total Decisions\n# TYPE d_total counter\n"
        "d_total{action=\"patch\"} 2\nd_total{action=\"refuse\"} 0\n"
        "# HELP e_total Other\n# TYPE e_total counter\ne_total 5\n");
}
