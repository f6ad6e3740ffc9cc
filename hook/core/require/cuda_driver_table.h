// NVIDIA's published minimum Linux driver for each CUDA release, and what it says about the CUDA
// version a given driver supports when NVML's own answer (the NVML cache) is not at hand. The data
// lives in cuda_driver_table.cc, and only there.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "require/cuda_range.h"
#include "require/version.h"

namespace gnh {

struct CudaDriverRow {
  const char* cuda;        // "12.4": a CUDA release (major.minor, its GA)
  const char* min_driver;  // "550.54.14": the "Toolkit Driver Version", Linux x86_64
};

// Oldest first.
std::span<const CudaDriverRow> cuda_driver_table();
// "CUDA Toolkit 13.2 Update 2 Release Notes, Table 3": where the rows were read from.
const char* cuda_driver_table_source();

// The CUDA versions driver `driver` supports according to the table. A driver supports the CUDA
// release of every row whose minimum it meets (low). A driver of an older branch (the first number)
// than a release's minimum never supports that release (high); a driver of the newest branch in
// the table or newer may support releases the table does not list yet (high unknown).
CudaRange cuda_range_from_table(const Version& driver);

}  // namespace gnh
