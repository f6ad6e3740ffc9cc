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
