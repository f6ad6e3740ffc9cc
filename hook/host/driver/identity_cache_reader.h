// The GPU identity cache (gpu/identity_cache.h) on the host: the binding id read from sysfs, the
// cache loaded for a start, and the cache built from the driver and written by `topology
// --refresh`. Loading is never a Failure: a cache that is missing, unreadable, malformed or of
// another boot only means the information files are read from the driver, as without one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpu/identity_cache.h"
#include "host/fs/host_fs.h"

namespace gnh {

// The id of the GPU's current binding to its driver: the inode number of
// /sys/bus/pci/devices/<bus>/driver, for the GPU's directory name in /proc/driver/nvidia/gpus.
// nullopt when unbound, not a PCI address, or unreadable. `pci_devices`: /sys/bus/pci/devices
// held open (a start looks at every GPU's); without it, the path is walked.
std::optional<uint64_t> read_gpu_binding(const HostFs& fs, std::string_view gpu_dir);
std::optional<uint64_t> read_gpu_binding(const HostDir& pci_devices, std::string_view gpu_dir);
constexpr const char* kPciDevicesPath = "/sys/bus/pci/devices";
// kPciDevicesPath held open; nullopt when it cannot be (then no binding can be proven, and every
// GPU is read from the driver).
std::optional<HostDir> open_pci_devices(const HostFs& fs);

// The cache at kIdentityCachePath when it was written in this boot; nullopt otherwise.
std::optional<IdentityCache> load_identity_cache(const HostFs& fs);

// Every GPU's information file read from the driver, each kept only when its binding is the same
// before and after the read and it names the GPU's UUID (gpu/identity_cache.h): a GPU rebound
// meanwhile, or not yet initialised, is left out, and read from the driver at every start until
// the next refresh; `no_uuid` gets the directories left out for want of a UUID. Failure when the
// GPU directory cannot be listed.
IdentityCache build_identity_cache(const HostFs& fs, std::vector<std::string>* no_uuid = nullptr);

// Writes the cache atomically to kIdentityCachePath, creating its directory (0755). Failure
// naming the file.
void write_identity_cache(const HostFs& fs, const IdentityCache& cache);

}  // namespace gnh
