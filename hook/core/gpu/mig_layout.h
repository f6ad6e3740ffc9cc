// A GPU's MIG layout as the driver shows it now, against the one the NVML cache was written for.
// The driver lists each GPU instance of a GPU in MIG mode as
// /proc/driver/nvidia/capabilities/gpu<minor>/mig/gi<GI>/ (and each compute instance as .../ci<CI>/),
// gpu<minor> being the GPU's device minor (NVIDIA's container toolkit builds these paths from
// nvmlDeviceGetMinorNumber of the parent). The MIG manager re-partitions a GPU on a running node:
// a cache written before names instances, and memory nodes, that are gone. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpu/nvml_cache.h"

namespace gnh {

// (GPU instance id, compute instance id), sorted: one per MIG device.
using MigLayout = std::vector<std::pair<unsigned, unsigned>>;

// "gi3" with prefix "gi" -> 3; nullopt for any other name (a bounded decimal, no sign, no padding).
std::optional<unsigned> mig_instance_id(std::string_view name, std::string_view prefix);

// The layout the cache lists for this GPU: its MIG devices' (GPU instance, compute instance).
MigLayout cached_mig_layout(const CachedGpu& gpu);

// "" when the two match; else one clause naming both, e.g. "the NVML cache lists GPU instances
// 1/0, 2/0 (GI/CI), the driver lists 3/0 now".
std::string mig_layout_change(const MigLayout& cached, const MigLayout& live);

// A capability node of one GPU instance: its own, or one of its compute instances'.
struct MigCapability {
  unsigned gpu_instance_id = 0;
  unsigned minor = 0;
};

// The GPU instances whose capability nodes a container was given (minors sorted), sorted, unique.
std::vector<unsigned> gpu_instances_given(const std::vector<MigCapability>& driver, const std::vector<unsigned>& minors);

constexpr const char* kMigCapabilitiesDir = "/proc/driver/nvidia/capabilities";

}  // namespace gnh
