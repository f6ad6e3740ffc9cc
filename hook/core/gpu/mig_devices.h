// MIG devices in a container's request, resolved with the NVML cache: a "MIG-<uuid>" to its parent
// GPU (procfs does not name MIG devices), a "<gpu>:<mig>" to its instance, and for a GPU in MIG
// state the instances whose memory nodes the container needs. Pure.
#pragma once

#include <string>
#include <vector>

#include "gpu/gpu.h"
#include "gpu/gpu_request.h"
#include "gpu/nvml_cache.h"

namespace gnh {

struct MigDeviceMatch {
  std::string reference;  // as written in the request
  size_t gpu = 0;         // its parent, an index into Inventory::gpus
  MigInstance instance;
};

struct MigResolution {
  std::vector<MigDeviceMatch> found;
  std::vector<std::string> unresolved;  // MIG references the cache does not know
};

// Parents are matched to the inventory by UUID (the cache's GPU index only finds the cached GPU).
MigResolution resolve_mig_references(const std::vector<std::string>& references, const Inventory& inventory,
                                     const NvmlCache& cache);

// The MIG instances of inventory.gpus[gpu] the container gets: those its MIG references name, or
// every instance the cache lists when it gets the GPU whole (named by index, UUID, bus id or
// "all", or given only as its device node, which is how any MIG device's container gets it too).
std::vector<MigInstance> mig_instances_for(size_t gpu, const Inventory& inventory, const NvmlCache& cache,
                                           const GpuRequest& request, const MigResolution& resolution);

}  // namespace gnh
