// An image's NVIDIA_REQUIRE_* (require/cuda_requirement.h): the container's creator writes the env,
// so every byte is hostile. The input is the env, one "KEY=VALUE" per line. Whatever it holds, the
// parser stays within its bounds, a requirement that did not parse is never judged, and a refusal
// is only ever for a requirement that parsed; a version that parses prints back to itself.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "require/cuda_driver_table.h"
#include "require/cuda_requirement.h"

namespace {

gnh::HostFacts host(const char* driver, bool nvml) {
  gnh::HostFacts h;
  h.driver = gnh::parse_version(driver);
  if (!h.driver) __builtin_trap();
  h.cuda = gnh::cuda_range_from_table(*h.driver);
  if (nvml) {
    h.cuda->exact = true;
    h.gpus.push_back({"/dev/nvidia0", std::string("tesla"), gnh::parse_version("9.0")});
    h.gpus.push_back({"/dev/nvidia1", std::string("nvidia"), gnh::parse_version("8.0")});
  }
  return h;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> env;
  for (size_t pos = 0; pos <= text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    env.emplace_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  gnh::ImageRequirements image = gnh::read_image_requirements(env);
  if (image.disabled && !image.requirements.empty()) __builtin_trap();
  if (image.requirements.size() > gnh::kMaxRequirementVars + 2) __builtin_trap();
  for (const auto& r : image.requirements) {
    if (r.text.size() > gnh::kShownRequirementChars + 3 * 4 * gnh::kShownRequirementChars) __builtin_trap();
    if (!r.error.empty() && !r.any_of.empty()) __builtin_trap();
    if (r.any_of.size() > gnh::kMaxAlternatives) __builtin_trap();
    for (const auto& alt : r.any_of) {
      if (alt.empty() || alt.size() > gnh::kMaxConditions) __builtin_trap();
      for (const auto& c : alt)
        if ((c.key == "cuda" || c.key == "driver" || c.key == "arch") && !c.version) __builtin_trap();
    }
  }
  for (const auto& h : {host("580.159.04", false), host("535.104.05", true), host("610.1", false)}) {
    gnh::RequirementCheck c = gnh::check_requirements(image, h);
    if (c.state == gnh::RequirementState::unsatisfied && c.message.find("NVIDIA_DISABLE_REQUIRE=true") == std::string::npos)
      __builtin_trap();
    if (c.state == gnh::RequirementState::disabled && !image.disabled) __builtin_trap();
  }
  if (auto v = gnh::parse_version(text)) {
    auto again = gnh::parse_version(v->to_string());
    if (!again || gnh::compare(*v, *again) != 0) __builtin_trap();
  }
  return 0;
}
