#include "decide/policy.h"

#include <array>
#include <utility>

namespace gnh {

namespace {

// Each policy's values and their names in the config file, in one table that both directions read.
template <typename T, size_t N>
using Names = std::array<std::pair<T, std::string_view>, N>;

constexpr Names<MissingNodePolicy, 3> kMissingNode{
    {{MissingNodePolicy::patch, "patch"}, {MissingNodePolicy::refuse, "refuse"}, {MissingNodePolicy::warn, "warn"}}};
constexpr Names<AffinityPolicy, 4> kAffinity{{{AffinityPolicy::ignore, "ignore"},
                                              {AffinityPolicy::warn, "warn"},
                                              {AffinityPolicy::patch, "patch"},
                                              {AffinityPolicy::refuse, "refuse"}}};
constexpr Names<ExplicitMemsPolicy, 2> kExplicitMems{
    {{ExplicitMemsPolicy::respect, "respect"}, {ExplicitMemsPolicy::widen, "widen"}}};
constexpr Names<OnErrorPolicy, 2> kOnError{{{OnErrorPolicy::allow, "allow"}, {OnErrorPolicy::refuse, "refuse"}}};
constexpr Names<CudaRequirementPolicy, 3> kCudaRequirement{{{CudaRequirementPolicy::refuse, "refuse"},
                                                            {CudaRequirementPolicy::warn, "warn"},
                                                            {CudaRequirementPolicy::off, "off"}}};

template <typename T, size_t N>
const char* name_of(const Names<T, N>& names, T value) {
  for (const auto& [v, name] : names)
    if (v == value) return name.data();  // the literals above are NUL-terminated
  return "?";
}

template <typename T, size_t N>
std::optional<T> value_of(const Names<T, N>& names, std::string_view text) {
  for (const auto& [v, name] : names)
    if (name == text) return v;
  return std::nullopt;
}

}  // namespace

const char* to_string(MissingNodePolicy p) { return name_of(kMissingNode, p); }
const char* to_string(AffinityPolicy p) { return name_of(kAffinity, p); }
const char* to_string(ExplicitMemsPolicy p) { return name_of(kExplicitMems, p); }
const char* to_string(OnErrorPolicy p) { return name_of(kOnError, p); }
const char* to_string(CudaRequirementPolicy p) { return name_of(kCudaRequirement, p); }
std::optional<MissingNodePolicy> missing_node_policy_from(std::string_view s) { return value_of(kMissingNode, s); }
std::optional<AffinityPolicy> affinity_policy_from(std::string_view s) { return value_of(kAffinity, s); }
std::optional<ExplicitMemsPolicy> explicit_mems_policy_from(std::string_view s) { return value_of(kExplicitMems, s); }
std::optional<OnErrorPolicy> on_error_policy_from(std::string_view s) { return value_of(kOnError, s); }
std::optional<CudaRequirementPolicy> cuda_requirement_policy_from(std::string_view s) {
  return value_of(kCudaRequirement, s);
}

}  // namespace gnh
