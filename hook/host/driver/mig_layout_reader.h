// A GPU's live MIG layout, from the driver's capability folders (gpu/mig_layout.h), and whether the
// NVML cache still describes it.
#pragma once

#include <optional>
#include <string>

#include "gpu/mig_layout.h"
#include "gpu/nvml_cache.h"
#include "host/fs/host_fs.h"

namespace gnh {

// nullopt when the driver has no capability folder for this GPU's MIG instances (a driver without
// MIG capabilities, or a GPU never put in MIG mode since the driver loaded): nothing to compare.
// Failure when the folder cannot be read.
std::optional<MigLayout> read_mig_layout(const HostFs& fs, unsigned minor);

// The capability nodes of the GPU instances the driver lists for this GPU now (each instance's
// access file and its compute instances'); empty without a capability folder. A file that cannot be
// read is left out: its instance is then not known by its nodes, and the GPU counts whole.
std::vector<MigCapability> read_mig_capabilities(const HostFs& fs, unsigned minor);

// "" when the cache's entry for the GPU with this minor and UUID matches the driver's layout now
// (or the driver shows none to compare); else one clause: the GPU, both layouts, the fix. A
// listing that fails counts as a change: the cache is then not trusted.
std::string mig_layout_staleness(const HostFs& fs, const NvmlCache& cache, unsigned minor, const std::string& uuid);

// The first GPU of the cache whose layout the driver no longer lists as cached ("" when none).
std::string any_mig_layout_staleness(const HostFs& fs, const NvmlCache& cache);

}  // namespace gnh
