#include "host/fs/atomic_file.h"

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

namespace {

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

size_t entries_in(const std::string& dir) {
  size_t n = 0;
  for (auto& e : fs::directory_iterator(dir)) { (void)e; ++n; }
  return n;
}

}  // namespace

// Durability::replaced exchanges the new file in (renameat2) where it can and renames otherwise;
// either way a reader sees the old or the new file, and nothing else is left in the directory.
// On ext4 (/tmp here) and tmpfs (/dev/shm) when it is there.
TEST_CASE("atomic write, replaced: new content and mode, old readers keep the old file, no temp file") {
  for (std::string base : {"/tmp", "/dev/shm"}) {
    if (!fs::is_directory(base)) {
      MESSAGE("SKIPPED for " << base << ": not a directory here");
      continue;
    }
    CAPTURE(base);
    std::string tmpl = base + "/gnh-replaced-XXXXXX";
    REQUIRE(::mkdtemp(tmpl.data()));
    const std::string dir = tmpl;
    const std::string path = dir + "/config.json";
    { std::ofstream(path) << "{\"old\":1}"; }
    std::ifstream reader(path);  // a reader that opened the old file before the replacement
    struct stat before {};
    REQUIRE(::stat(path.c_str(), &before) == 0);

    write_file_atomically(path, "{\"new\":2}", 0640, Durability::replaced);

    CHECK(read_text(path) == "{\"new\":2}");
    std::stringstream old_seen;
    old_seen << reader.rdbuf();
    CHECK(old_seen.str() == "{\"old\":1}");
    struct stat after {};
    REQUIRE(::stat(path.c_str(), &after) == 0);
    CHECK(after.st_ino != before.st_ino);
    CHECK((after.st_mode & 0777) == 0640);
    CHECK(entries_in(dir) == 1);

    // absent: created (nothing to exchange with)
    const std::string fresh = dir + "/fresh.json";
    write_file_atomically(fresh, "{}", 0644, Durability::replaced);
    CHECK(read_text(fresh) == "{}");
    CHECK(entries_in(dir) == 2);

    // a symlink is replaced by the file, as rename does; its target is left as it was
    const std::string target = dir + "/target.json";
    const std::string link = dir + "/link.json";
    { std::ofstream(target) << "target"; }
    REQUIRE(::symlink(target.c_str(), link.c_str()) == 0);
    write_file_atomically(link, "replaced link", 0644, Durability::replaced);
    CHECK(!fs::is_symlink(link));
    CHECK(read_text(link) == "replaced link");
    CHECK(read_text(target) == "target");
    CHECK(entries_in(dir) == 4);

    // a directory is never swapped for the file: the write fails, the directory stays, no temp file
    const std::string sub = dir + "/sub";
    fs::create_directory(sub);
    CHECK_THROWS_AS(write_file_atomically(sub, "x", 0644, Durability::replaced), Failure);
    CHECK(fs::is_directory(sub));
    CHECK(entries_in(dir) == 5);
    fs::remove_all(dir);
  }
}
