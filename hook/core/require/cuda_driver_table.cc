#include "require/cuda_driver_table.h"

namespace gnh {

namespace {

// Read from NVIDIA's CUDA Toolkit 13.2 Update 2 Release Notes, Table 3 "CUDA Toolkit and
// Corresponding Driver Versions", column "Toolkit Driver Version", Linux x86_64: one row per CUDA
// release, its GA (the first driver that reports that CUDA version; update releases may ask for a
// newer driver of the same branch but report the same CUDA version). 11.0 is its first release
// (11.0.1 RC, 450.36.06); 8.0 its first GA (8.0.44). Add a row when a new CUDA release is out.
constexpr CudaDriverRow kRows[] = {
    {"7.0", "346.46"},     {"7.5", "352.31"},     {"8.0", "367.48"},     {"9.0", "384.81"},
    {"9.1", "390.46"},     {"9.2", "396.26"},     {"10.0", "410.48"},    {"10.1", "418.39"},
    {"10.2", "440.33"},    {"11.0", "450.36.06"}, {"11.1", "455.23"},    {"11.2", "460.27.03"},
    {"11.3", "465.19.01"}, {"11.4", "470.42.01"}, {"11.5", "495.29.05"}, {"11.6", "510.39.01"},
    {"11.7", "515.43.04"}, {"11.8", "520.61.05"}, {"12.0", "525.60.13"}, {"12.1", "530.30.02"},
    {"12.2", "535.54.03"}, {"12.3", "545.23.06"}, {"12.4", "550.54.14"}, {"12.5", "555.42.02"},
    {"12.6", "560.28.03"}, {"12.8", "570.26"},    {"12.9", "575.51.03"}, {"13.0", "580.65.06"},
    {"13.1", "590.44.01"}, {"13.2", "595.45.04"},
};

Version must(const char* s) { return *parse_version(s); }  // the table's own text, tested

}  // namespace

std::span<const CudaDriverRow> cuda_driver_table() { return kRows; }

const char* cuda_driver_table_source() {
  return "CUDA Toolkit 13.2 Update 2 Release Notes, Table 3 (minimum Linux driver per CUDA release)";
}

CudaRange cuda_range_from_table(const Version& driver) {
  CudaRange r;
  r.low = Version{{0}};
  r.source = std::string("the driver table (") + cuda_driver_table_source() + ")";
  const uint32_t branch = driver.parts.empty() ? 0 : driver.parts[0];
  for (const auto& row : kRows) {
    Version min = must(row.min_driver);
    if (compare(driver, min) >= 0) r.low = must(row.cuda);
    if (!r.high && min.parts[0] > branch) r.high = must(row.cuda);
  }
  // A driver reports major.minor: with nothing between low and high, it reports low.
  if (r.high && r.high->parts[0] == r.low.parts[0] && r.low.parts.size() == 2 && r.high->parts.size() == 2 &&
      r.high->parts[1] == r.low.parts[1] + 1)
    r.exact = true;
  return r;
}

}  // namespace gnh
