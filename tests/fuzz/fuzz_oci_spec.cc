// A bundle's config.json: written by whoever creates the container. Parsed, then fed to the cheap
// GPU test the hook runs on every start. Only ParseError may come out, and the scanner's way
// (parse_spec) must give exactly what the whole-document parse gives: the same fields, or the
// same error message.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gpu/gpu_request.h"
#include "parse_error.h"
#include "spec.h"

namespace {

bool same(const oci::Spec& a, const oci::Spec& b) {
  if (a.env != b.env || a.bounding_capabilities != b.bounding_capabilities || a.hooks.size() != b.hooks.size() ||
      a.cgroups_path != b.cgroups_path || a.cpuset_mems != b.cpuset_mems ||
      a.annotations != b.annotations || a.devices.size() != b.devices.size() || a.mounts.size() != b.mounts.size())
    return false;
  for (size_t i = 0; i < a.devices.size(); ++i)
    if (a.devices[i].path != b.devices[i].path || a.devices[i].type != b.devices[i].type ||
        a.devices[i].major != b.devices[i].major || a.devices[i].minor != b.devices[i].minor)
      return false;
  for (size_t i = 0; i < a.hooks.size(); ++i)
    if (a.hooks[i].stage != b.hooks[i].stage || a.hooks[i].path != b.hooks[i].path || a.hooks[i].args != b.hooks[i].args)
      return false;
  for (size_t i = 0; i < a.mounts.size(); ++i)
    if (a.mounts[i].destination != b.mounts[i].destination || a.mounts[i].source != b.mounts[i].source) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::optional<oci::Spec> fast, whole;
  std::string fast_error, whole_error;
  try {
    fast = oci::parse_spec(text);
  } catch (const oci::ParseError& e) {
    fast_error = e.what();
  }
  try {
    whole = oci::parse_spec_whole(text);
  } catch (const oci::ParseError& e) {
    whole_error = e.what();
  }
  if (fast.has_value() != whole.has_value() || fast_error != whole_error) __builtin_trap();
  if (fast && !same(*fast, *whole)) __builtin_trap();
  if (fast) {
    (void)gnh::may_request_gpus(*fast, gnh::every_device_form());
    (void)gnh::may_request_gpus(*fast, gnh::device_forms(*fast, gnh::visible_devices_reader(*fast, ""), std::nullopt));
    (void)fast->env_value(gnh::kVisibleDevicesEnv);
    if (fast->cpuset_mems && fast->cpuset_mems->empty()) __builtin_trap();  // empty means unset
  }
  return 0;
}
