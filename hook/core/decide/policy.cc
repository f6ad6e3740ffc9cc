#include "decide/policy.h"

namespace gnh {

const char* to_string(MissingNodePolicy p) {
  switch (p) {
    case MissingNodePolicy::patch: return "patch";
    case MissingNodePolicy::refuse: return "refuse";
    case MissingNodePolicy::warn: return "warn";
  }
  return "?";
}
const char* to_string(AffinityPolicy p) {
  switch (p) {
    case AffinityPolicy::ignore: return "ignore";
    case AffinityPolicy::warn: return "warn";
    case AffinityPolicy::patch: return "patch";
    case AffinityPolicy::refuse: return "refuse";
  }
  return "?";
}
const char* to_string(ExplicitMemsPolicy p) { return p == ExplicitMemsPolicy::respect ? "respect" : "widen"; }
const char* to_string(OnErrorPolicy p) { return p == OnErrorPolicy::allow ? "allow" : "refuse"; }

std::optional<MissingNodePolicy> missing_node_policy_from(std::string_view s) {
  if (s == "patch") return MissingNodePolicy::patch;
  if (s == "refuse") return MissingNodePolicy::refuse;
  if (s == "warn") return MissingNodePolicy::warn;
  return std::nullopt;
}
std::optional<AffinityPolicy> affinity_policy_from(std::string_view s) {
  if (s == "ignore") return AffinityPolicy::ignore;
  if (s == "warn") return AffinityPolicy::warn;
  if (s == "patch") return AffinityPolicy::patch;
  if (s == "refuse") return AffinityPolicy::refuse;
  return std::nullopt;
}
std::optional<ExplicitMemsPolicy> explicit_mems_policy_from(std::string_view s) {
  if (s == "respect") return ExplicitMemsPolicy::respect;
  if (s == "widen") return ExplicitMemsPolicy::widen;
  return std::nullopt;
}
std::optional<OnErrorPolicy> on_error_policy_from(std::string_view s) {
  if (s == "allow") return OnErrorPolicy::allow;
  if (s == "refuse") return OnErrorPolicy::refuse;
  return std::nullopt;
}

}  // namespace gnh
