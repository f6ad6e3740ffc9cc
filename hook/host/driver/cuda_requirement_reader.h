// The host's side of an image's NVIDIA_REQUIRE_* (require/cuda_requirement.h): the driver's
// version from /proc/driver/nvidia/version and NVIDIA's driver table first; the NVML cache (exact
// CUDA version, each GPU's brand and compute capability) only when that does not settle it.
#pragma once

#include <functional>
#include <vector>

#include "gpu/gpu.h"
#include "host/fs/host_fs.h"
#include "host/driver/nvml_cache_reader.h"
#include "require/cuda_requirement.h"

namespace gnh {

// `nvml` loads the cache at most once (the pipeline shares it with MIG).
RequirementCheck check_cuda_requirement(const HostFs& fs, const ImageRequirements& image, const std::vector<Gpu>& gpus,
                                        const std::function<const NvmlCacheLoad&()>& nvml);

// The host's facts as topology shows them: the driver's version and its CUDA version (NVML cache
// when current, else the table). `nvml` may be nullptr (no cache).
HostFacts read_host_cuda_facts(const HostFs& fs, const NvmlCache* nvml);

}  // namespace gnh
