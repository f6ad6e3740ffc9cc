// The NVML cache (issue 20): root writes it, but the hook parses it as hostile. What the parser
// accepts must be in range, and writing it back must give a text that parses to the same cache.
// Also the driver version line of /proc/driver/nvidia/version.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gpu/nvml_cache.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string why;
  if (auto cache = gnh::parse_nvml_cache(text, &why)) {
    if (cache->gpus.size() > gnh::kMaxCachedGpus) __builtin_trap();
    if (cache->cuda_version && (cache->cuda_version->size() > 7 || cache->cuda_version->find('.') == std::string::npos))
      __builtin_trap();
    for (const auto& g : cache->gpus) {
      if (g.minor > 254 || (g.memory_node && (*g.memory_node < 0 || *g.memory_node > 1023))) __builtin_trap();
      if (g.mig_devices.size() > gnh::kMaxCachedMigDevices) __builtin_trap();
      if (g.brand && (g.brand->empty() || g.brand->size() > 32)) __builtin_trap();
      if (g.compute_capability && g.compute_capability->find('.') == std::string::npos) __builtin_trap();
      for (const auto& m : g.mig_devices)
        if (m.memory_node && (*m.memory_node < 0 || *m.memory_node > 1023)) __builtin_trap();
    }
    std::string written = gnh::nvml_cache_json(*cache);
    auto again = gnh::parse_nvml_cache(written);
    if (!again || gnh::nvml_cache_json(*again) != written) __builtin_trap();
  } else if (why.empty()) {
    __builtin_trap();  // a refusal always says why
  }
  if (auto v = gnh::parse_driver_version(text)) {
    if (v->empty() || v->size() > 32 || v->find('.') == std::string::npos) __builtin_trap();
  }
  return 0;
}
