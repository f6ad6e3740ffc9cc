// Config [[topology.gpu]] overrides: corrections an operator makes where the driver describes a
// GPU badly. Pure: applied to an inventory read elsewhere (host/driver/driver_reader.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpu/gpu.h"

namespace gnh {

// A config [[topology.gpu]] entry: matched by minor, UUID or bus id; replaces or adds nodes for
// platforms whose driver describes the GPU badly.
struct TopologyOverride {
  std::optional<unsigned> minor;
  std::string uuid;
  std::string bus_id;
  std::optional<int> memory_node;
  std::optional<int> affinity_node;

  bool matches(const Gpu& g) const;
  std::string describe() const;
};

// Applies overrides to one GPU (after its memory facts are read), or to a whole inventory.
void apply_overrides(Gpu& g, const std::vector<TopologyOverride>& overrides);
void apply_overrides(Inventory& inv, const std::vector<TopologyOverride>& overrides);

}  // namespace gnh
