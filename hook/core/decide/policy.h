// What an operator chooses: how to treat a container that lacks its GPU's memory node, a GPU's
// nearest node, an explicit cpuset from the user, and the hook's own failures.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gnh {

enum class MissingNodePolicy { patch, refuse, warn };
enum class AffinityPolicy { ignore, warn, patch, refuse };
enum class ExplicitMemsPolicy { respect, widen };
enum class OnErrorPolicy { allow, refuse };
// An image whose NVIDIA_REQUIRE_* the host's driver certainly does not meet (require/).
enum class CudaRequirementPolicy { refuse, warn, off };

struct Policy {
  MissingNodePolicy missing_node = MissingNodePolicy::patch;
  AffinityPolicy gpu_affinity = AffinityPolicy::ignore;
  ExplicitMemsPolicy explicit_mems = ExplicitMemsPolicy::widen;
  OnErrorPolicy on_error = OnErrorPolicy::allow;
  CudaRequirementPolicy cuda_requirement = CudaRequirementPolicy::refuse;
};

const char* to_string(MissingNodePolicy p);
const char* to_string(AffinityPolicy p);
const char* to_string(ExplicitMemsPolicy p);
const char* to_string(OnErrorPolicy p);
const char* to_string(CudaRequirementPolicy p);
std::optional<MissingNodePolicy> missing_node_policy_from(std::string_view s);
std::optional<AffinityPolicy> affinity_policy_from(std::string_view s);
std::optional<ExplicitMemsPolicy> explicit_mems_policy_from(std::string_view s);
std::optional<OnErrorPolicy> on_error_policy_from(std::string_view s);
std::optional<CudaRequirementPolicy> cuda_requirement_policy_from(std::string_view s);

}  // namespace gnh
