// How the driver manages coherent GPU memory (Grace Hopper / Grace Blackwell), from the
// CoherentGPUMemoryMode line of /proc/driver/nvidia/params: "numa" (the memory is a NUMA node the
// kernel onlines: what this hook guards), "driver" (CDMM: the driver keeps it; no node exists, so
// there is nothing to guard), or unknown (the line is absent or empty: older drivers, PCIe hosts, or
// the driver's default, which is CDMM from R615 on coherent platforms). Pure.
#pragma once

#include <string>
#include <string_view>

namespace gnh {

enum class MemoryMode { numa, driver, unknown };

const char* to_string(MemoryMode m);

struct DriverMemoryMode {
  MemoryMode mode = MemoryMode::unknown;
  std::string params_line;  // the line as the driver wrote it, for topology and logs; "" when absent
  // "EnableUserNUMAManagement: 0" when the driver says so: the switch CoherentGPUMemoryMode=driver
  // sets (os-registry.c), and without it the driver makes no GPU memory node (nv-pci.c), whatever
  // CoherentGPUMemoryMode says: CDMM, the R615 default with the mode unset. "" otherwise.
  std::string user_numa_off_line;
};

DriverMemoryMode parse_memory_mode(std::string_view params_text);

// What made the mode "driver", for messages: "CoherentGPUMemoryMode=driver" or
// "EnableUserNUMAManagement: 0, the default from R615"; "" for other modes.
std::string cdmm_switch(const DriverMemoryMode& m);

}  // namespace gnh
