#include "host/atomic_file.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/error.h"

using namespace gnh;
namespace fs = std::filesystem;

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
