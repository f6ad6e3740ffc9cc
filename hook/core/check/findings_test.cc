#include "check/findings.h"

#include <doctest/doctest.h>

using namespace gnh;

namespace {

NodeSet ns(const char* text) { return *NodeSet::parse(text); }

// Builds a snapshot from (path, mems) pairs given parents first; "" with has_mems=false is a v2
// cgroup without cpuset files.
CpusetSnapshot snapshot(CgroupVersion v, std::vector<std::pair<std::string, std::string>> cgroups) {
  CpusetSnapshot s;
  s.version = v;
  s.mount_point = v == CgroupVersion::v1 ? "/sys/fs/cgroup/cpuset" : "/sys/fs/cgroup";
  for (const auto& [path, mems] : cgroups) {
    int parent = -1;
    if (path != "/") {
      std::string p = cgroup_parent(path);
      for (size_t i = 0; i < s.cgroups.size(); ++i)
        if (s.cgroups[i].path == p) parent = static_cast<int>(i);
      REQUIRE(parent >= 0);
    }
    s.cgroups.push_back({path, parent, ns(mems.c_str()), true});
  }
  return s;
}

HostNodes ac922_nodes() {
  Inventory inv;
  int nodes[] = {255, 254, 253, 252};
  for (unsigned i = 0; i < 4; ++i) {
    Gpu g;
    g.minor = i;
    g.bus_id = "0004:0" + std::to_string(i) + ":00.0";
    g.memory_node = nodes[i];
    g.memory_status = "online";
    inv.gpus.push_back(g);
  }
  NodeSet cpus = ns("0,8");
  return host_nodes_from(inv, ns("0,8,252-255"), &cpus);
}

}  // namespace

TEST_CASE("host nodes: late nodes are the CPU-less ones - offline GPU nodes listed and late") {
  Inventory inv;
  Gpu a;
  a.minor = 0;
  a.bus_id = "0004:04:00.0";
  a.memory_node = 255;
  a.memory_status = "online";
  Gpu b = a;
  b.minor = 3;
  b.memory_node = 252;
  b.memory_status = "online_in_progress";
  Gpu pcie;
  pcie.minor = 5;
  inv.gpus = {a, b, pcie};
  NodeSet cpus = ns("0,8");
  HostNodes n = host_nodes_from(inv, ns("0,8,253-255"), &cpus);
  CHECK(n.gpu_online.to_string() == "255");
  CHECK(n.late.to_string() == "252-255");
  REQUIRE(n.gpu_offline.size() == 1);
  CHECK(n.gpu_offline[0].gpu == "/dev/nvidia3");
  CHECK(n.gpu_offline[0].node == 252);
  CHECK(n.gpu_offline[0].status == "online_in_progress");
  // has_cpu unknown: every memory node may be the late one.
  CHECK(host_nodes_from(inv, ns("0,8,253-255"), nullptr).late.to_string() == "0,8,252-255");
}

TEST_CASE("v1 AC922 after hotplug: children of a stale slice are compared with the fixed parent") {
  auto snap = snapshot(CgroupVersion::v1, {{"/", "0,8,252-255"},
                                           {"/docker", "0,8"},
                                           {"/docker/c1", "0,8"},
                                           {"/docker/c2", "0"},  // pinned with --cpuset-mems=0
                                           {"/system.slice", "0,8,252-255"},
                                           {"/system.slice/a.service", "0,8,252-255"}});
  CheckFindings f = find_problems(snap, ac922_nodes());
  CHECK(f.cgroups == 6);
  CHECK(f.root_missing.empty());
  REQUIRE(f.stale.size() == 2);
  CHECK(f.stale[0].path == "/docker");
  CHECK(f.stale[0].missing.to_string() == "252-255");
  CHECK(f.stale[0].expected.to_string() == "0,8,252-255");
  CHECK(f.stale[1].path == "/docker/c1");
  CHECK(f.stale[1].missing.to_string() == "252-255");
  // GPU gaps: the two stale ones plus the pinned container, which is not stale and not fixed.
  REQUIRE(f.missing_gpu_node.size() == 3);
  CHECK(f.missing_gpu_node[2].path == "/docker/c2");
  CHECK(f.missing_gpu_node[2].missing.to_string() == "252-255");
  CHECK_FALSE(f.missing_gpu_node[2].stale);
  CHECK(f.missing_gpu_node[0].stale);
  CHECK(f.problems() == 2);
}

TEST_CASE("v1: a child narrower than its parent only by CPU nodes is a pin, not staleness") {
  auto snap = snapshot(CgroupVersion::v1, {{"/", "0,8,252-255"}, {"/machine.slice", "8,252-255"}});
  CheckFindings f = find_problems(snap, ac922_nodes());
  CHECK(f.stale.empty());
  CHECK(f.missing_gpu_node.empty());
  CHECK(f.problems() == 0);
}

TEST_CASE("v1: an unconfigured (empty) cpuset is neither stale nor a gap - its children see the parent") {
  auto snap = snapshot(CgroupVersion::v1, {{"/", "0,8,252-255"}, {"/fresh", ""}, {"/fresh/x", "0,8"}});
  CheckFindings f = find_problems(snap, ac922_nodes());
  REQUIRE(f.stale.size() == 1);
  CHECK(f.stale[0].path == "/fresh/x");
}

TEST_CASE("nodes online on the host but missing from the root, and a healthy tree") {
  auto snap = snapshot(CgroupVersion::v1, {{"/", "0,8,253-255"}, {"/docker", "0,8,253-255"}});
  CheckFindings f = find_problems(snap, ac922_nodes());
  CHECK(f.root_missing.to_string() == "252");
  CHECK(f.stale.empty());
  // Cgroups can only have what the root has: they lack 252 but are not stale.
  REQUIRE(f.missing_gpu_node.size() == 1);
  CHECK(f.missing_gpu_node[0].missing.to_string() == "252");
  CHECK(f.problems() == 1);
}

TEST_CASE("v2 Grace Hopper: only explicit values count - inheriting cgroups are never stale") {
  Inventory inv;
  Gpu g;
  g.bus_id = "0009:01:00.0";
  g.memory_node = 1;
  g.memory_status = "online";
  inv.gpus = {g};
  NodeSet cpus = ns("0");
  HostNodes nodes = host_nodes_from(inv, ns("0-1"), &cpus);
  auto snap = snapshot(CgroupVersion::v2, {{"/", "0-1"},
                                           {"/kubepods.slice", ""},
                                           {"/kubepods.slice/burstable", "0"},
                                           {"/kubepods.slice/burstable/pod1", ""},
                                           {"/kubepods.slice/burstable/pod1/ctr", "0"},
                                           {"/system.slice", ""}});
  snap.cgroups[5].has_mems = false;
  CheckFindings f = find_problems(snap, nodes);
  REQUIRE(f.stale.size() == 2);
  CHECK(f.stale[0].path == "/kubepods.slice/burstable");
  CHECK(f.stale[0].expected.to_string() == "0-1");
  CHECK(f.stale[1].path == "/kubepods.slice/burstable/pod1/ctr");
  CHECK(f.missing_gpu_node.size() == 2);
}

TEST_CASE("the fix plan is the stale list, parents first, never narrowing") {
  auto snap = snapshot(CgroupVersion::v1, {{"/", "0,8,252-255"},
                                           {"/kubepods.slice", "0,8"},
                                           {"/kubepods.slice/kubepods-burstable.slice", "0,8"},
                                           {"/kubepods.slice/kubepods-burstable.slice/pod1", "8"}});
  auto plan = plan_check_fix(find_problems(snap, ac922_nodes()));
  REQUIRE(plan.size() == 2);
  CHECK(plan[0].path == "/kubepods.slice");
  CHECK(plan[1].path == "/kubepods.slice/kubepods-burstable.slice");
  for (const auto& s : plan) {
    CHECK(s.before.is_subset_of(s.after));
    CHECK(s.after.to_string() == "0,8,252-255");
  }
  // pod1 lacks node 0 (a CPU node): pinned, left alone.
}
