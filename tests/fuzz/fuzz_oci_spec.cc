// A bundle's config.json: written by whoever creates the container. Parsed, then fed to the cheap
// GPU test the hook runs on every start. Only ParseError may come out.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gpu/gpu_request.h"
#include "parse_error.h"
#include "spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    oci::Spec s = oci::parse_spec(text);
    (void)gnh::may_request_gpus(s);
    (void)s.env_value(gnh::kVisibleDevicesEnv);
    if (s.cpuset_mems && s.cpuset_mems->empty()) __builtin_trap();  // empty means unset
  } catch (const oci::ParseError&) {
  }
  return 0;
}
