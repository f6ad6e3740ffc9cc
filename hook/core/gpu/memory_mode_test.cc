#include "gpu/memory_mode.h"

#include <doctest/doctest.h>

using namespace gnh;

TEST_CASE("memory mode: the params line in the driver's format, quoted - absent or empty is unknown") {
  auto cdmm = parse_memory_mode("EnableMSI: 1\nCoherentGPUMemoryMode: \"driver\"\nRmMsg: \"\"\n");
  CHECK(cdmm.mode == MemoryMode::driver);
  CHECK(cdmm.params_line == "CoherentGPUMemoryMode: \"driver\"");
  CHECK(parse_memory_mode("CoherentGPUMemoryMode: \"numa\"\n").mode == MemoryMode::numa);
  auto empty = parse_memory_mode("CoherentGPUMemoryMode: \"\"\n");
  CHECK(empty.mode == MemoryMode::unknown);
  CHECK(empty.params_line == "CoherentGPUMemoryMode: \"\"");
  auto absent = parse_memory_mode("EnableMSI: 1\nRegistryDwords: \"\"\n");
  CHECK(absent.mode == MemoryMode::unknown);
  CHECK(absent.params_line == "");
  CHECK(parse_memory_mode("CoherentGPUMemoryMode: driver").mode == MemoryMode::driver);
  CHECK(parse_memory_mode("XCoherentGPUMemoryMode: \"driver\"\n").mode == MemoryMode::unknown);
}

TEST_CASE("memory mode: EnableUserNUMAManagement 0 is CDMM whatever CoherentGPUMemoryMode says (R615 default: unset)") {
  // nv_procfs_read_params prints the dword parameters first, then the string ones.
  auto r615 = parse_memory_mode("EnableUserNUMAManagement: 0\nGpuInitOnProbe: 0\nCoherentGPUMemoryMode: \"\"\nRmMsg: \"\"\n");
  CHECK(r615.mode == MemoryMode::driver);
  CHECK(r615.params_line == "CoherentGPUMemoryMode: \"\"");
  CHECK(r615.user_numa_off_line == "EnableUserNUMAManagement: 0");
  CHECK(parse_memory_mode("EnableUserNUMAManagement: 0\n").mode == MemoryMode::driver);
  CHECK(parse_memory_mode("EnableUserNUMAManagement: 0\nCoherentGPUMemoryMode: \"numa\"\n").mode == MemoryMode::driver);
  auto on = parse_memory_mode("EnableUserNUMAManagement: 1\nCoherentGPUMemoryMode: \"\"\n");
  CHECK(on.mode == MemoryMode::unknown);
  CHECK(on.user_numa_off_line == "");
  CHECK(parse_memory_mode("EnableUserNUMAManagement: 10\n").mode == MemoryMode::unknown);
  CHECK(cdmm_switch(r615) == "EnableUserNUMAManagement: 0, the default from R615");
  // "driver" sets EnableUserNUMAManagement to 0 itself (os-registry.c): the string is the switch named.
  CHECK(cdmm_switch(parse_memory_mode("EnableUserNUMAManagement: 0\nCoherentGPUMemoryMode: \"driver\"\n")) ==
        "CoherentGPUMemoryMode=driver");
  CHECK(cdmm_switch(parse_memory_mode("CoherentGPUMemoryMode: \"driver\"\n")) == "CoherentGPUMemoryMode=driver");
  CHECK(cdmm_switch(on) == "");
}
