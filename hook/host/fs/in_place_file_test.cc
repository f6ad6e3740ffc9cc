#include "host/fs/in_place_file.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/error.h"

using namespace gnh;
namespace fs = std::filesystem;

namespace {

std::string temp_dir() {
  char tmpl[] = "/tmp/gnh-inplace-XXXXXX";
  REQUIRE(::mkdtemp(tmpl));
  return tmpl;
}

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("in place: creates the file and its parent, rewrites it, pads a shorter text with newlines") {
  std::string dir = temp_dir();
  std::string path = dir + "/sub/counts";
  update_in_place(path, std::chrono::milliseconds(100), [](std::string_view old) {
    CHECK(old == "");
    return std::string("abcdef\n");
  });
  CHECK(read_text(path) == "abcdef\n");
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
  update_in_place(path, std::chrono::milliseconds(100), [](std::string_view old) {
    CHECK(old == "abcdef\n");
    return std::string("xy\n");
  });
  CHECK(read_text(path) == "xy\n\n\n\n\n");
  CHECK(read_in_place(path, std::chrono::milliseconds(100)) == "xy\n\n\n\n\n");
  CHECK(read_in_place(dir + "/absent", std::chrono::milliseconds(100)) == std::nullopt);
  fs::remove_all(dir);
}

TEST_CASE("in place: a lock held past the wait fails, naming the file, and leaves the text unchanged") {
  std::string dir = temp_dir();
  std::string path = dir + "/counts";
  update_in_place(path, std::chrono::milliseconds(100), [](std::string_view) { return std::string("1\n"); });
  int holder = ::open(path.c_str(), O_RDONLY);
  REQUIRE(holder >= 0);
  REQUIRE(::flock(holder, LOCK_EX) == 0);
  bool called = false;
  try {
    update_in_place(path, std::chrono::milliseconds(20), [&](std::string_view) {
      called = true;
      return std::string("2\n");
    });
    FAIL("no failure");
  } catch (const Failure& e) {
    CHECK(std::string(e.what()) == "lock of " + path + " held by another process for over 20 ms");
  }
  CHECK_FALSE(called);
  CHECK_THROWS_AS(read_in_place(path, std::chrono::milliseconds(20)), Failure);
  ::close(holder);
  CHECK(read_in_place(path, std::chrono::milliseconds(20)) == "1\n");
  fs::remove_all(dir);
}

TEST_CASE("in place: a symlink is not followed") {
  std::string dir = temp_dir();
  { std::ofstream(dir + "/target") << "keep\n"; }
  REQUIRE(::symlink((dir + "/target").c_str(), (dir + "/counts").c_str()) == 0);
  CHECK_THROWS_AS(update_in_place(dir + "/counts", std::chrono::milliseconds(20),
                                  [](std::string_view) { return std::string("x\n"); }),
                  Failure);
  CHECK(read_text(dir + "/target") == "keep\n");
  fs::remove_all(dir);
}

TEST_CASE("in place: processes updating at once lose no update") {
  std::string dir = temp_dir();
  std::string path = dir + "/counts";
  constexpr int kProcesses = 4, kEach = 200;
  auto increment = [](std::string_view old) {
    long n = old.empty() ? 0 : std::stol(std::string(old));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%010ld\n", n + 1);
    return std::string(buf);
  };
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      try {
        for (int i = 0; i < kEach; ++i) update_in_place(path, std::chrono::milliseconds(5000), increment);
      } catch (...) {
        ::_exit(1);
      }
      ::_exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  }
  CHECK(read_text(path) == "0000000800\n");
  fs::remove_all(dir);
}
