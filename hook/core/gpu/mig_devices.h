// MIG devices in a container's request, resolved with the NVML cache: a "MIG-<uuid>" to its parent
// GPU (procfs does not name MIG devices), a "<gpu>:<mig>" to its instance, and for a GPU in MIG
// state the instances whose memory nodes the container needs. Pure.
#pragma once

#include <string>
#include <vector>

#include "gpu/gpu.h"
#include "gpu/gpu_request.h"
#include "gpu/memory_state.h"
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

// The MIG instances of inventory.gpus[gpu] the container gets: those its MIG references name and
// those of the GPU instances in `given_gpu_instances` (the ones whose capability nodes it was
// given, gpu_instances_given), or every instance the cache lists when it gets the GPU whole (named
// by index, UUID, bus id or "all", or given only as its device node, which is how any MIG device's
// container gets it too).
std::vector<MigInstance> mig_instances_for(size_t gpu, const Inventory& inventory, const NvmlCache& cache,
                                           const GpuRequest& request, const MigResolution& resolution,
                                           const std::vector<unsigned>& given_gpu_instances = {});

// One MIG instance's memory as a GPU memory of its own, for the code that classifies GPU memory one
// node at a time (decide, check, wait): its node, "online" (the driver onlines a GPU instance's
// memory when it creates the instance), no read error, not self-onlining.
Gpu mig_instance_memory(const Gpu& parent, const MigInstance& instance);

// The GPUs' memories one node at a time: a GPU in MIG state (numa_status EIO) whose instances are
// known becomes one mig_instance_memory per instance with a node; every other GPU stays as it is.
std::vector<Gpu> memories_by_node(const std::vector<Gpu>& gpus, const HostMemoryFacts& host);

}  // namespace gnh
