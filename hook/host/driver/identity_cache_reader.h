// The GPU identity cache (gpu/identity_cache.h) on the host: the bindings read from sysfs, the
// cache loaded for a start, and the cache built from the driver and written by `topology
// --refresh`. Loading is never a Failure: a cache that is missing, unreadable, malformed or of
// another boot only means the information files are read from the driver, as without one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpu/identity_cache.h"
#include "host/fs/host_fs.h"

namespace gnh {

// The GPUs bound to the NVIDIA driver now, each with the id of its binding: the inode number of
// its link in /sys/bus/pci/drivers/nvidia, which the kernel makes anew at every bind. All of them
// from one listing of that directory: a start given 64 GPUs looked at 64 links one by one.
class GpuBindings {
 public:
  // The binding of the GPU whose directory in /proc/driver/nvidia/gpus is `gpu_dir`; nullopt when
  // it is not bound to the NVIDIA driver (or not a PCI address).
  std::optional<uint64_t> of(std::string_view gpu_dir) const;

 private:
  friend GpuBindings read_gpu_bindings(const HostFs& fs);
  std::vector<std::pair<std::string, uint64_t>> links_;  // bus id, inode; sorted
};
constexpr const char* kNvidiaDriverPath = "/sys/bus/pci/drivers/nvidia";
// Empty (no GPU bound) when the directory is missing or cannot be listed.
GpuBindings read_gpu_bindings(const HostFs& fs);

// The cache at kIdentityCachePath when it was written in this boot; nullopt otherwise.
std::optional<IdentityCache> load_identity_cache(const HostFs& fs);

// The GPUs a refresh leaves out, by directory, for its report. Each is read from the driver at
// every start until a refresh finds it.
struct IdentitiesLeftOut {
  std::vector<std::string> not_bound;  // no link in kNvidiaDriverPath, or a new one since the refresh began
  std::vector<std::string> no_uuid;    // its information file names no GPU UUID yet (not initialised)
};

// Every GPU's identity from its information file, each kept only when its binding is the same
// before and after the reads and it names the GPU's UUID (gpu/identity_cache.h); the others go to
// `left_out`. Failure when the GPU directory cannot be listed.
IdentityCache build_identity_cache(const HostFs& fs, IdentitiesLeftOut* left_out = nullptr);

// Writes the cache atomically to kIdentityCachePath, creating its directory (0755). Failure
// naming the file.
void write_identity_cache(const HostFs& fs, const IdentityCache& cache);

}  // namespace gnh
