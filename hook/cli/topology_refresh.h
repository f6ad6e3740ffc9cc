// The caches `topology --refresh` writes, and `topology --follow` rewrites when they no longer
// describe the host: the GPU identity cache, then the NVML cache from gpu-numa-nvml-probe.
#pragma once

#include <optional>
#include <string>

#include "config/config.h"
#include "host/fs/host_fs.h"

namespace gnh {

// Prints what it wrote; Failure (the NVML cache left as it was) when the probe or its answer fails.
void refresh_caches(const HostFs& fs, const Config& config, const std::optional<std::string>& nvml_library);

}  // namespace gnh
