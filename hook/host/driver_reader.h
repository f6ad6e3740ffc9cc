// What the NVIDIA driver and the kernel say about GPUs and memory nodes, read through HostFs and
// handed to the pure parsers in gpu/driver_files.h.
#pragma once

#include <vector>

#include "base/node_set.h"
#include "gpu/gpu.h"
#include "gpu/topology_override.h"
#include "host/host_fs.h"

namespace gnh {

// Lists /proc/driver/nvidia/gpus. A GPU directory whose information file is unreadable or
// malformed is a Failure naming the file: guessing would let a broken host pass silently.
Inventory read_inventory(const HostFs& fs, const std::vector<TopologyOverride>& overrides);

// The host's online memory nodes: /sys/devices/system/node/has_memory (N_MEMORY), falling back to
// "online" on kernels without it.
NodeSet read_memory_nodes(const HostFs& fs);
// Every node id the kernel can ever have (/sys/devices/system/node/possible); empty when unknown.
NodeSet read_possible_nodes(const HostFs& fs);

}  // namespace gnh
