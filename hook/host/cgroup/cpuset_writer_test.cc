#include "host/cgroup/cpuset_writer.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>

#include "base/error.h"
#include "errno_of.h"

using namespace gnh;
namespace fs = std::filesystem;

namespace {

// A v1 cpuset tree on disk: root 0,8,252 and /docker 0,8.
struct Tree {
  std::string mount;
  HostFs host{"/"};
  Tree() {
    char t[] = "/tmp/gnh-writer-XXXXXX";
    REQUIRE(::mkdtemp(t));
    mount = t;
    std::ofstream(mount + "/cpuset.mems") << "0,8,252\n";
    fs::create_directory(mount + "/docker");
    std::ofstream(mount + "/docker/cpuset.mems") << "0,8\n";
  }
  ~Tree() { fs::remove_all(mount); }
  CpusetTree tree() const { return CpusetTree(host, CpusetLocation{CgroupVersion::v1, mount, "/"}); }
  std::string read(const std::string& rel) const {
    std::ifstream f(mount + rel);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
};

}  // namespace

TEST_CASE("cpuset writer: widens, reads back, returns what the file says") {
  Tree t;
  CHECK(write_mems_verified(t.tree(), {"/docker", NodeSet::of({0, 8}), NodeSet::of({0, 8, 252})}) ==
        NodeSet::of({0, 8, 252}));
  CHECK(t.read("/docker/cpuset.mems") == "0,8,252");
}

TEST_CASE("cpuset writer: never the root, never narrowing - the files stay as they were") {
  Tree t;
  CHECK(errno_of([&] { write_mems_verified(t.tree(), {"/", NodeSet::of({0, 8, 252}), NodeSet::of({0, 8, 252, 253})}); }) ==
        EPERM);
  CHECK(errno_of([&] { write_mems_verified(t.tree(), {"/docker", NodeSet::of({0, 8}), NodeSet::of({0})}); }) == EPERM);
  CHECK(t.read("/cpuset.mems") == "0,8,252\n");
  CHECK(t.read("/docker/cpuset.mems") == "0,8\n");
}

TEST_CASE("cpuset writer: a cgroup removed before the write fails with ENOENT, named as the operator sees it") {
  Tree t;
  fs::remove_all(t.mount + "/docker");
  try {
    write_mems_verified(t.tree(), {"/docker", NodeSet::of({0, 8}), NodeSet::of({0, 8, 252})});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.error_number() == ENOENT);
    CHECK(std::string(e.what()) == "cannot write '0,8,252' to " + t.mount + "/docker/cpuset.mems: ENOENT (No such file or directory)");
  }
}
