// Reads the GPU inventory and the host's memory nodes through HostFs, applying config overrides.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpu.h"
#include "host_fs.h"
#include "node_set.h"

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

// Lists /proc/driver/nvidia/gpus. A GPU directory whose information file is unreadable or
// malformed is a Failure naming the file: guessing would let a broken host pass silently.
Inventory read_inventory(const HostFs& fs, const std::vector<TopologyOverride>& overrides);

// Applies overrides to an inventory (pure; exposed for tests).
void apply_overrides(Inventory& inv, const std::vector<TopologyOverride>& overrides);

// The host's online memory nodes: /sys/devices/system/node/has_memory (N_MEMORY), falling back to
// "online" on kernels without it.
NodeSet read_memory_nodes(const HostFs& fs);
// Every node id the kernel can ever have (/sys/devices/system/node/possible); empty when unknown.
NodeSet read_possible_nodes(const HostFs& fs);

}  // namespace gnh
