// Whether the NVML cache still describes the GPUs the driver shows now: the same boot and driver,
// the same GPUs, and each GPU's MIG layout as the driver lists it. `topology --follow` asks this
// on every tick and runs NVML only when the answer is no. Pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpu/mig_layout.h"
#include "gpu/nvml_cache.h"

namespace gnh {

// One GPU as the driver's procfs shows it, without NVML.
struct LiveGpu {
  unsigned minor = 0;
  std::string bus_id;              // canonical, as the NVML cache writes it
  std::optional<MigLayout> mig;    // nullopt: the driver lists no MIG capability folder for it
};

// The host now: what a cache must match.
struct LiveGpus {
  std::string boot_id;
  std::string driver_version;      // "" when the driver is not loaded
  std::vector<LiveGpu> gpus;
};

// "" when the cache describes `live`; else the first difference, one clause for an operator
// ("GPU /dev/nvidia1 (0009:01:00.0) was re-partitioned: ...").
std::string nvml_cache_refresh_reason(const NvmlCache& cache, const LiveGpus& live);

// The same facts as one comparable value: a refresh that failed is retried when this changes.
std::string live_gpus_fingerprint(const LiveGpus& live);

}  // namespace gnh
