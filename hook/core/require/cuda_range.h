// The CUDA versions a host's driver may support, as an interval: exact when NVML said it
// (nvmlSystemGetCudaDriverVersion), a range when only the driver's version and NVIDIA's table of
// minimum driver versions (require/cuda_driver_table.h) are known. Pure.
#pragma once

#include <optional>
#include <string>

#include "require/version.h"

namespace gnh {

struct CudaRange {
  Version low;                 // the driver certainly supports this CUDA version
  std::optional<Version> high; // it certainly does not support this one or later; nullopt = unknown
  bool exact = false;          // low is the driver's CUDA version (NVML); high is then unused
  std::string source;          // "NVML" or "the driver table (CUDA Toolkit ... release notes)"

  // "13.0", "12.9 or 13.0 (12.9 <= CUDA < 13.1)", "13.2 or later"
  std::string to_display() const;
  // The newest CUDA version the driver certainly supports, for "use an image for CUDA <= X".
  std::string certain_max() const { return low.to_string(); }
};

}  // namespace gnh
