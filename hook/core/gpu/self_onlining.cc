#include "gpu/self_onlining.h"

#include <charconv>

#include "base/text.h"

namespace gnh {

bool is_self_hosted_device_id(unsigned id) {
  return (id >= 0x2340 && id <= 0x237f) || (id >= 0x2940 && id <= 0x297f) || (id >= 0x31c0 && id <= 0x31ff) ||
         id == 0x31a1;
}

std::optional<unsigned> parse_pci_device_id(std::string_view text) {
  text = trim(text);
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) text.remove_prefix(2);
  unsigned v = 0;
  if (text.empty() || text.size() > 4) return std::nullopt;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 16);
  if (ec != std::errc() || p != text.data() + text.size()) return std::nullopt;
  return v;
}

bool is_self_hosted_model(std::string_view model) {
  for (std::string_view chip : {"GH200", "GB200", "GB300"})
    if (model.find(chip) != std::string_view::npos) return true;
  return false;
}

std::string not_initialized_text() { return "not initialized (persistence mode off)"; }

std::string wont_online_text(const std::string& value) {
  return "the driver will refuse to online it: /sys/devices/system/memory/auto_online_blocks is '" + value +
         "', and the driver adds GPU memory only as " + kAutoOnlineNeeded +
         " (its numa_status would turn online_failed at the GPU's first client); set it to " + kAutoOnlineNeeded +
         " (echo " + kAutoOnlineNeeded + " > /sys/devices/system/memory/auto_online_blocks, or memhp_default_state=" +
         kAutoOnlineNeeded + " on the kernel command line)";
}

}  // namespace gnh
