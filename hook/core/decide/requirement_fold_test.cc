#include "decide/requirement_fold.h"

#include <doctest/doctest.h>

using namespace gnh;

namespace {

Decision numa(Action a, const std::string& msg) {
  Decision d;
  d.action = a;
  d.message = msg;
  if (a == Action::patch) d.to_add = *NodeSet::parse("1");
  return d;
}

RequirementCheck check(RequirementState s, const std::string& msg) {
  RequirementCheck c;
  c.state = s;
  c.message = msg;
  return c;
}

}  // namespace

TEST_CASE("requirement fold: unsatisfied refuses before any patch, or warns, unknown never changes the action") {
  Decision d = numa(Action::patch, "needs node 1");
  fold_requirement(d, check(RequirementState::unsatisfied, "the image requires cuda>=13.1"), CudaRequirementPolicy::refuse);
  CHECK(d.action == Action::refuse);
  CHECK(d.to_add.empty());
  CHECK(d.message == "the image requires cuda>=13.1");

  d = numa(Action::allow, "nothing to do");
  fold_requirement(d, check(RequirementState::unsatisfied, "the image requires cuda>=13.1"), CudaRequirementPolicy::warn);
  CHECK(d.action == Action::warn);
  CHECK(d.message == "the image requires cuda>=13.1 (policy cuda-requirement=warn) (nothing to do)");

  d = numa(Action::patch, "needs node 1");
  fold_requirement(d, check(RequirementState::unsatisfied, "x"), CudaRequirementPolicy::warn);
  CHECK(d.action == Action::patch);
  CHECK(d.message == "needs node 1; x (policy cuda-requirement=warn)");

  d = numa(Action::allow, "ok");
  fold_requirement(d, check(RequirementState::unsatisfied, "x"), CudaRequirementPolicy::off);
  CHECK(d.action == Action::allow);
  CHECK(d.message == "ok");

  d = numa(Action::allow, "ok");
  fold_requirement(d, check(RequirementState::unknown, "not judged"), CudaRequirementPolicy::refuse);
  CHECK(d.action == Action::allow);
  CHECK(d.message == "ok; not judged");

  d = numa(Action::allow, "ok");
  fold_requirement(d, check(RequirementState::unparseable, "cannot be read"), CudaRequirementPolicy::refuse);
  CHECK(d.action == Action::warn);

  d = numa(Action::refuse, "node offline");
  fold_requirement(d, check(RequirementState::unparseable, "cannot be read"), CudaRequirementPolicy::refuse);
  CHECK(d.action == Action::refuse);
  CHECK(d.message == "node offline; cannot be read");

  d = numa(Action::allow, "ok");
  fold_requirement(d, check(RequirementState::satisfied, "met"), CudaRequirementPolicy::refuse);
  CHECK(d.message == "ok");
}
