// The image's CUDA requirement (require/cuda_requirement.h) joined to the NUMA decision: a
// requirement the driver certainly does not meet refuses the start (or warns, by policy); one that
// does not parse warns; one that cannot be judged is noted in the message and never refuses.
#pragma once

#include "decide/decision.h"
#include "decide/policy.h"
#include "require/cuda_requirement.h"

namespace gnh {

void fold_requirement(Decision& d, const RequirementCheck& check, CudaRequirementPolicy policy);

}  // namespace gnh
