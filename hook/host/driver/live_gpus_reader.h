// The GPUs and MIG layouts the driver shows now, from procfs alone (no NVML): what
// `topology --follow` compares with the NVML cache on every tick (gpu/nvml_cache_currency.h).
#pragma once

#include "gpu/nvml_cache_currency.h"
#include "host/fs/host_fs.h"

namespace gnh {

// Failure when a GPU's information file or MIG listing cannot be read.
LiveGpus read_live_gpus(const HostFs& fs);

}  // namespace gnh
