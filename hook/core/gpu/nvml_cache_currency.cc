#include "gpu/nvml_cache_currency.h"

#include <algorithm>

namespace gnh {

namespace {
std::string gpu_label(unsigned minor, const std::string& bus_id) {
  return "GPU /dev/nvidia" + std::to_string(minor) + " (" + bus_id + ")";
}
}  // namespace

std::string nvml_cache_refresh_reason(const NvmlCache& cache, const LiveGpus& live) {
  if (std::string stale = nvml_cache_staleness(cache, live.boot_id, live.driver_version); !stale.empty()) return stale;
  for (const auto& g : live.gpus) {
    auto c = std::find_if(cache.gpus.begin(), cache.gpus.end(), [&](const CachedGpu& x) { return x.bus_id == g.bus_id; });
    if (c == cache.gpus.end()) return gpu_label(g.minor, g.bus_id) + " is not in the NVML cache";
    if (c->minor != g.minor)
      return gpu_label(g.minor, g.bus_id) + " is /dev/nvidia" + std::to_string(c->minor) + " in the NVML cache";
    if (!g.mig) continue;
    if (std::string change = mig_layout_change(cached_mig_layout(*c), *g.mig); !change.empty())
      return gpu_label(g.minor, g.bus_id) + " was re-partitioned: " + change;
  }
  for (const auto& c : cache.gpus)
    if (std::none_of(live.gpus.begin(), live.gpus.end(), [&](const LiveGpu& g) { return g.bus_id == c.bus_id; }))
      return gpu_label(c.minor, c.bus_id) + " in the NVML cache is gone from the driver";
  return "";
}

std::string live_gpus_fingerprint(const LiveGpus& live) {
  std::string out = live.boot_id + " " + live.driver_version;
  for (const auto& g : live.gpus) {
    out += "; " + std::to_string(g.minor) + "@" + g.bus_id;
    if (!g.mig) continue;
    out += " mig";
    for (const auto& [gi, ci] : *g.mig) out += " " + std::to_string(gi) + "/" + std::to_string(ci);
  }
  return out;
}

}  // namespace gnh
