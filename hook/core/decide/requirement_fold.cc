#include "decide/requirement_fold.h"

namespace gnh {

namespace {

void append(Decision& d, const std::string& what) { d.message += (d.message.empty() ? "" : "; ") + what; }

// A warning that does not hide the NUMA decision: an allow becomes a warn; a patch, warn or
// refusal keeps its action and carries the warning in its message.
void warn(Decision& d, const std::string& what) {
  if (d.action == Action::allow) {
    d.action = Action::warn;
    d.message = what + (d.message.empty() ? "" : " (" + d.message + ")");
    return;
  }
  append(d, what);
}

}  // namespace

void fold_requirement(Decision& d, const RequirementCheck& check, CudaRequirementPolicy policy) {
  if (policy == CudaRequirementPolicy::off) return;
  switch (check.state) {
    case RequirementState::none:
    case RequirementState::satisfied:
      return;
    case RequirementState::disabled:
    case RequirementState::unknown:
      append(d, check.message);
      return;
    case RequirementState::unparseable:
      warn(d, check.message);
      return;
    case RequirementState::unsatisfied:
      if (policy == CudaRequirementPolicy::refuse) {
        // Refused on the requirement alone: no cgroup is written for a container that cannot run.
        d.action = Action::refuse;
        d.to_add = {};
        d.arrives_later = {};
        d.message = check.message;
      } else {
        warn(d, check.message + " (policy cuda-requirement=warn)");
      }
      return;
  }
}

}  // namespace gnh
