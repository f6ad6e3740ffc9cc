#include "gpu/topology_override.h"

#include <algorithm>

#include "gpu/driver_files.h"

namespace gnh {

namespace {
bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}
}  // namespace

bool TopologyOverride::matches(const Gpu& g) const {
  if (minor) return *minor == g.minor;
  if (!uuid.empty()) return iequals(uuid, g.uuid);
  if (!bus_id.empty()) {
    auto canon = canonical_pci_address(bus_id);
    return canon && *canon == g.bus_id;
  }
  return false;
}

std::string TopologyOverride::describe() const {
  if (minor) return "minor " + std::to_string(*minor);
  if (!uuid.empty()) return "uuid " + uuid;
  return "bus-id " + bus_id;
}

void apply_overrides(Gpu& g, const std::vector<TopologyOverride>& overrides) {
  for (const auto& o : overrides) {
    if (!o.matches(g)) continue;
    if (o.memory_node) {
      g.memory_node = *o.memory_node;
      // An override asserts the node exists; whether it is online is still checked on the host.
      if (!g.memory_status) g.memory_status = "online";
      g.memory_read_errno = 0;  // the operator's word replaces a numa_status we could not read
      g.memory_read_error.clear();
    }
    if (o.affinity_node) g.affinity_node = *o.affinity_node;
    g.overridden = true;
  }
}

void apply_overrides(Inventory& inv, const std::vector<TopologyOverride>& overrides) {
  for (auto& g : inv.gpus) apply_overrides(g, overrides);
}

}  // namespace gnh
