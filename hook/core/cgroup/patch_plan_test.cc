#include "cgroup/patch_plan.h"

#include <doctest/doctest.h>

using namespace gnh;

TEST_CASE("v1: top-down from the first stale ancestor - nothing removed") {
  std::vector<CgroupMemsSnapshot> chain = {
      {"/kubepods.slice", *NodeSet::parse("0,8,252-255")},
      {"/kubepods.slice/kubepods-burstable.slice", NodeSet::of({0, 8})},
      {"/kubepods.slice/kubepods-burstable.slice/pod1", NodeSet::of({8})},
  };
  auto steps = plan_patch(CgroupVersion::v1, chain, NodeSet::of({252}));
  REQUIRE(steps.size() == 2);
  CHECK(steps[0].path == "/kubepods.slice/kubepods-burstable.slice");
  CHECK(steps[0].after.to_string() == "0,8,252");
  CHECK(steps[1].path == "/kubepods.slice/kubepods-burstable.slice/pod1");
  CHECK(steps[1].after.to_string() == "8,252");
  for (const auto& s : steps) CHECK(s.before.is_subset_of(s.after));
}

TEST_CASE("v2: only explicit values are widened - empty ones inherit") {
  std::vector<CgroupMemsSnapshot> chain = {
      {"/kubepods.slice", NodeSet(), true},
      {"/kubepods.slice/pod1", NodeSet::of({0}), true},
      {"/kubepods.slice/pod1/ctr", NodeSet(), false},
  };
  auto steps = plan_patch(CgroupVersion::v2, chain, NodeSet::of({1}));
  REQUIRE(steps.size() == 1);
  CHECK(steps[0].path == "/kubepods.slice/pod1");
  CHECK(steps[0].after.to_string() == "0-1");
}

TEST_CASE("an already healed chain plans nothing") {
  std::vector<CgroupMemsSnapshot> chain = {{"/docker", NodeSet::of({0, 1})}, {"/docker/c", NodeSet::of({0, 1})}};
  CHECK(plan_patch(CgroupVersion::v1, chain, NodeSet::of({1})).empty());
}

TEST_CASE("widening keeps positions only when every added node lies above the existing ones") {
  CHECK(widening_keeps_positions(NodeSet::of({0, 8}), NodeSet::of({0, 8, 252})));
  CHECK(widening_keeps_positions(NodeSet(), NodeSet::of({0, 1})));
  CHECK(widening_keeps_positions(NodeSet::of({0}), NodeSet::of({0})));
  CHECK_FALSE(widening_keeps_positions(NodeSet::of({0, 2}), NodeSet::of({0, 1, 2})));       // 2 would become 1
  CHECK_FALSE(widening_keeps_positions(NodeSet::of({0, 8, 253}), NodeSet::of({0, 8, 252, 253})));  // 253 -> 252
}
