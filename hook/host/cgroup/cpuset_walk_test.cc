// check's walk (find_problems_walking: one open per directory, opens relative to it, no snapshot)
// must find exactly what find_problems finds over snapshot_cpusets, in the same order, with and
// without openat2, and keep HostFs's rules: a symlinked cgroup is an error, not followed.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "host/cgroup/cpuset_tree.h"
#include "host/cgroup/cpuset_walk.h"
#include "host/fs/host_fs.h"

using namespace gnh;

namespace {

struct Tree {
  std::string root;
  Tree() {
    char t[] = "/tmp/gnh-walk-XXXXXX";
    REQUIRE(::mkdtemp(t));
    root = t;
  }
  ~Tree() { std::filesystem::remove_all(root); }
  void cgroup(const std::string& path, const std::string& mems) {
    std::filesystem::create_directories(root + "/cg" + path);
    std::ofstream(root + "/cg" + path + "/cpuset.mems") << mems << "\n";
  }
};

std::string describe(const CheckFindings& f) {
  std::string s = std::to_string(f.cgroups) + " cgroups; stale:";
  for (const auto& x : f.stale) s += " " + x.path + "(" + x.mems.to_string() + "->" + x.expected.to_string() + ")";
  s += "; gaps:";
  for (const auto& g : f.missing_gpu_node) s += " " + g.path + "(" + g.missing.to_string() + ")";
  return s + "; root missing " + f.root_missing.to_string();
}

}  // namespace

TEST_CASE("check's walk finds what find_problems finds over a snapshot, in the same order") {
  Tree t;
  t.cgroup("", "0,8,252-255");
  for (const char* s : {"/docker", "/system.slice", "/kubepods.slice", "/kubepods.slice/b", "/zeta", "/a.slice"})
    t.cgroup(s, "0,8");
  t.cgroup("/docker/c1", "0,8");
  t.cgroup("/docker/c0", "0,8,252");
  t.cgroup("/kubepods.slice/b/p9", "");
  t.cgroup("/kubepods.slice/b/p10", "0");  // narrowed on purpose: not stale
  t.cgroup("/zeta/deep", "0,8,252-255");
  t.cgroup("/zeta/deep/er", "0,8,252-255");
  t.cgroup("/zeta/deep/er/still", "0,8,252-255");
  ::mkdir((t.root + "/cg/docker/not-a-cgroup-file").c_str(), 0755);
  std::filesystem::remove(t.root + "/cg/docker/not-a-cgroup-file");
  HostFs fs(t.root);
  CpusetTree tree(fs, CpusetLocation{CgroupVersion::v1, "/cg", "/"});
  HostNodes nodes;
  nodes.memory = *NodeSet::parse("0,8,252-255");
  nodes.late = *NodeSet::parse("252-255");
  nodes.gpu_online = *NodeSet::parse("252,253");
  std::string want = describe(find_problems(snapshot_cpusets(tree), nodes));
  CHECK(want.find("/docker/c1") != std::string::npos);
  CHECK(describe(find_problems_walking(tree, nodes)) == want);
  set_openat2_disabled_for_tests(true);
  CHECK(describe(find_problems_walking(tree, nodes)) == want);
  set_openat2_disabled_for_tests(false);
}

TEST_CASE("check's walk refuses a symlinked cgroup and a cpuset.mems that does not parse") {
  for (bool no_openat2 : {false, true}) {
    Tree t;
    t.cgroup("", "0,8");
    t.cgroup("/docker", "0,8");
    HostFs fs(t.root);
    CpusetTree tree(fs, CpusetLocation{CgroupVersion::v1, "/cg", "/"});
    HostNodes nodes;
    nodes.memory = *NodeSet::parse("0,8");
    set_openat2_disabled_for_tests(no_openat2);
    ::symlink((t.root + "/cg/docker").c_str(), (t.root + "/cg/docker/loop").c_str());
    // a symlink is not listed as a subdirectory (d_type DT_LNK): nothing is followed
    CHECK(find_problems_walking(tree, nodes).cgroups == 2);
    std::ofstream(t.root + "/cg/docker/cpuset.mems") << "zero\n";
    std::string err;
    try {
      find_problems_walking(tree, nodes);
    } catch (const std::exception& e) {
      err = e.what();
    }
    CHECK(err.find("cannot parse /cg/docker/cpuset.mems") != std::string::npos);
    set_openat2_disabled_for_tests(false);
  }
}
