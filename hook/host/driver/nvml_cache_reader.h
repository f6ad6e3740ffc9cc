// The NVML cache read through HostFs, with its generation checked against this boot and the loaded
// driver (gpu/nvml_cache.h). Never a Failure: a cache that is missing, unreadable, malformed or
// stale only means the hook does what it did without one, and says so.
#pragma once

#include <optional>
#include <string>

#include "gpu/gpu.h"
#include "gpu/nvml_cache.h"
#include "host/fs/host_fs.h"

namespace gnh {

struct NvmlCacheLoad {
  std::optional<NvmlCache> cache;  // set only when current
  std::string problem;             // why not, as one clause naming the file and the fix
};

NvmlCacheLoad load_nvml_cache(const HostFs& fs, const std::string& path);

// For the host-wide tools (check, wait, status): every GPU of `inv` in MIG state (numa_status EIO)
// gets all its MIG instances from the cache at `path`. Returns "" when none is in MIG state or the
// cache is current and matches each GPU's layout, else the first problem (those GPUs' instances
// then stay unknown, as without a cache); `unknown`, when given, gets each such GPU's device path.
std::string add_cached_mig_instances(const HostFs& fs, const std::string& path, Inventory& inv,
                                     std::vector<std::string>* unknown = nullptr);

// Writes the cache atomically (readers see the old file or the new one, never half), creating its
// directory (mode 0755) when absent. Failure naming the file.
void write_nvml_cache(const HostFs& fs, const std::string& path, const NvmlCache& cache);

// The generation the host is in now: /proc/sys/kernel/random/boot_id and the loaded driver's
// version (/proc/driver/nvidia/version); "" for either when absent.
std::string read_boot_id(const HostFs& fs);
std::string read_driver_version(const HostFs& fs);

constexpr const char* kBootIdPath = "/proc/sys/kernel/random/boot_id";

}  // namespace gnh
