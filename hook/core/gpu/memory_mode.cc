#include "gpu/memory_mode.h"

#include "base/text.h"

namespace gnh {

const char* to_string(MemoryMode m) {
  switch (m) {
    case MemoryMode::numa: return "numa";
    case MemoryMode::driver: return "driver";
    case MemoryMode::unknown: return "unknown";
  }
  return "?";
}

DriverMemoryMode parse_memory_mode(std::string_view text) {
  DriverMemoryMode out;
  constexpr std::string_view kKey = "CoherentGPUMemoryMode:";
  constexpr std::string_view kUserNuma = "EnableUserNUMAManagement:";
  bool seen_mode = false;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (line.substr(0, kUserNuma.size()) == kUserNuma) {
      if (trim(line.substr(kUserNuma.size())) == "0") out.user_numa_off_line = std::string(trim(line));
      continue;
    }
    if (seen_mode || line.substr(0, kKey.size()) != kKey) continue;
    seen_mode = true;
    out.params_line = std::string(trim(line));
    std::string_view value = trim(line.substr(kKey.size()));
    // String parameters are printed quoted ("driver"); tolerate a bare word too.
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    if (value == "driver") out.mode = MemoryMode::driver;
    else if (value == "numa") out.mode = MemoryMode::numa;
  }
  if (!out.user_numa_off_line.empty()) out.mode = MemoryMode::driver;
  return out;
}

std::string cdmm_switch(const DriverMemoryMode& m) {
  if (m.mode != MemoryMode::driver) return "";
  if (m.params_line.find("\"driver\"") != std::string::npos || m.user_numa_off_line.empty())
    return "CoherentGPUMemoryMode=driver";
  return "EnableUserNUMAManagement: 0, the default from R615";
}

}  // namespace gnh
