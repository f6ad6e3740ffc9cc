#include "prometheus_textfile.h"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "failure.h"

using namespace gnh;
namespace fs = std::filesystem;

TEST_CASE("exposition format: HELP, TYPE, then the sample; whole numbers without a fraction") {
  std::string text = render_metrics({{"a_total", "Things\nwith a \\ newline", "gauge", 3},
                                     {"b_seconds", "Time", "gauge", 1763700000},
                                     {"c_ratio", "Half", "gauge", 0.5}});
  CHECK(text ==
        "# HELP a_total Things\\nwith a \\\\ newline\n# TYPE a_total gauge\na_total 3\n"
        "# HELP b_seconds Time\n# TYPE b_seconds gauge\nb_seconds 1763700000\n"
        "# HELP c_ratio Half\n# TYPE c_ratio gauge\nc_ratio 0.5\n");
}

TEST_CASE("atomic write: replaces the file, leaves no temp file, world-readable") {
  char tmpl[] = "/tmp/gnh-prom-XXXXXX";
  REQUIRE(::mkdtemp(tmpl));
  std::string dir = tmpl;
  std::string path = dir + "/gpu_numa_hook.prom";
  { std::ofstream(path) << "old\n"; }
  write_file_atomically(path, "new 1\n");
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  CHECK(ss.str() == "new 1\n");
  size_t files = 0;
  for (auto& e : fs::directory_iterator(dir)) { (void)e; ++files; }
  CHECK(files == 1);
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
  CHECK_THROWS_AS(write_file_atomically(dir + "/no/such/dir/x.prom", "x"), Failure);
  fs::remove_all(dir);
}
