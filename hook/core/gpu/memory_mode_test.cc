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
