// What the NVIDIA driver and the kernel say about GPUs and memory nodes, read through HostFs and
// handed to the pure parsers in gpu/. The hook reads only what its decision needs: the information
// files that map the container's request (every GPU's only when the request names GPUs by index,
// bus id, "all" or MIG device), then the memory facts of the container's GPUs alone, so a GPU the
// container does not get can seldom slow its start and never fail it by its memory facts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/node_set.h"
#include "gpu/gpu.h"
#include "gpu/gpu_request.h"
#include "gpu/identity_cache.h"
#include "gpu/memory_mode.h"
#include "gpu/topology_override.h"
#include "host/driver/identity_cache_reader.h"
#include "host/fs/host_fs.h"

namespace gnh {

// /proc/driver/nvidia/gpus, held open while one evaluation reads it: each GPU's files are opened
// relative to it, so its path is walked once, not twice per GPU. No directory (the driver is not
// loaded): no GPUs.
// With `identities` (a start: host/driver/identity_cache_reader.h), a GPU whose binding is the one
// cached (`bindings`, read once) takes its identity from the cache instead of the driver.
struct GpuDirectory {
  explicit GpuDirectory(const HostFs& host) : fs(host), dir(host.open_dir("/proc/driver/nvidia/gpus")) {}
  const HostFs& fs;
  std::optional<HostDir> dir;
  std::optional<IdentityCache> identities;
  GpuBindings bindings;
};

// The GPUs /proc/driver/nvidia/gpus lists, from their information files, in bus id order. A
// malformed information file is a Failure naming it: without every GPU's minor, UUID and bus id a
// request by index, UUID or minor could be mapped to the wrong GPU. With `until`, the files are
// read in bus order only until every minor and UUID it names is found (gpu/gpu_request.h): the
// GPUs read so far are then the inventory, and the first GPU of a bus order that has them all is
// the one a full read would map each to, so the mapping is the same.
Inventory read_gpu_identities(const GpuDirectory& gpus, const IdentitiesWanted* until = nullptr);

// How to treat a numa_status that cannot be read with an errno other than EIO (MIG, which is
// recorded on the GPU in every mode).
enum class ReadErrors { fail, record };

// Whether the PCI device's numa_node (the GPU's nearest node) is read. Only gpu-affinity uses it
// for a decision; reports show it. A start under the default gpu-affinity = "ignore" skips one
// sysfs read per GPU.
enum class NearestNode { read, skip };

// One GPU's memory facts: numa_status (node, status; the errno when it cannot be read), the PCI
// device's numa_node (unless skipped), then the config's overrides for it.
void read_gpu_memory(const GpuDirectory& gpus, Gpu& gpu, const std::vector<TopologyOverride>& overrides, ReadErrors errors,
                     NearestNode nearest = NearestNode::read);

// Identities and memory facts of every GPU, for topology and check: a GPU whose numa_status cannot
// be read is shown as such, with its errno, and the others as usual.
Inventory read_inventory(const HostFs& fs, const std::vector<TopologyOverride>& overrides,
                         ReadErrors errors = ReadErrors::record);

// read_inventory for check (record) and wait (fail: an unreadable GPU is wait's error), which care
// only for GPU memory that is a NUMA node: empty when the driver manages GPU memory itself (CDMM).
Inventory read_numa_inventory(const HostFs& fs, const std::vector<TopologyOverride>& overrides, ReadErrors errors);

// Grace: a GPU whose driver adds its memory at GPU initialization and has not yet (numa_status
// offline): then auto_online_blocks decides whether it can, and a v2 cgroup may inherit the node.
bool any_self_onlining_offline(const std::vector<Gpu>& gpus);
// /sys/devices/system/memory/auto_online_blocks, trimmed ("online_movable"); "" when absent.
std::string read_auto_online_blocks(const HostFs& fs);

// /proc/driver/nvidia/params' CoherentGPUMemoryMode (unknown when the file or line is absent).
DriverMemoryMode read_memory_mode(const HostFs& fs);

// The host's online memory nodes: /sys/devices/system/node/has_memory (N_MEMORY), falling back to
// "online" on kernels without it.
NodeSet read_memory_nodes(const HostFs& fs);
// Every node id the kernel can ever have (/sys/devices/system/node/possible); empty when unknown.
NodeSet read_possible_nodes(const HostFs& fs);

}  // namespace gnh
