// What one GPU's memory means for a container right now: the one classifier behind the hook's
// decision, `check` and `wait`, so they can never disagree about a GPU. Each caller only words the
// state. Pure.
#pragma once

#include "base/node_set.h"
#include "gpu/gpu.h"

namespace gnh {

enum class GpuMemoryState {
  none,             // the GPU's memory is not a NUMA node (PCIe GPU, CDMM: no numa_status)
  disabled,         // numa_status "disabled": the driver keeps the memory out of the kernel
  mig,              // numa_status fails with EIO, as the driver does while MIG instances are
                    // active: the memory is not a usable node now, so none is required
  unreadable,       // numa_status fails with another errno: we cannot know what it needs
  impossible_node,  // numa_status names a node this kernel can never have (a bad override, driver mode)
  failed,           // online_failed / offline_failed: the driver gave up; it will not fix itself
  going_offline,    // offline_in_progress: the memory is being taken away
  offline,          // numa_status is not "online" (offline, online_in_progress, ...): wait for it
  not_initialized,  // Grace, numa_status offline: the GPU is not initialized yet (persistence mode
                    // off); the driver adds its memory at the GPU's first client, the container
  wont_online,      // as not_initialized, but auto_online_blocks is not online_movable: the driver
                    // will fail to online the memory
  not_in_kernel,    // online for the driver, but its memory blocks are not online in the kernel yet
  not_in_root,      // a kernel memory node the root cpuset lacks: no cgroup can get it
  usable,           // online, in the kernel and in the root cpuset: a container can have it
};

const char* to_string(GpuMemoryState s);

// The host facts the state depends on.
struct HostMemoryFacts {
  NodeSet memory_nodes;    // the kernel's online memory nodes (has_memory)
  NodeSet root_mems;       // the root cpuset's mems
  NodeSet possible_nodes;  // every node this kernel can have; empty = unknown
  // /sys/devices/system/memory/auto_online_blocks, read only when a self-onlining GPU is offline;
  // "" = not read or absent.
  std::string auto_online_blocks = {};
};

GpuMemoryState classify_gpu_memory(const Gpu& gpu, const HostMemoryFacts& host);

// A container given this GPU must have its memory node (a problem until it can).
inline bool needs_memory_node(GpuMemoryState s) {
  return s != GpuMemoryState::none && s != GpuMemoryState::disabled && s != GpuMemoryState::mig;
}
// Nothing stands between this GPU and a container that needs it.
inline bool is_ready(GpuMemoryState s) { return !needs_memory_node(s) || s == GpuMemoryState::usable; }
// Waiting alone will not make it ready: an operator has to act.
inline bool needs_operator(GpuMemoryState s) {
  return s == GpuMemoryState::impossible_node || s == GpuMemoryState::failed || s == GpuMemoryState::unreadable ||
         s == GpuMemoryState::wont_online;
}

}  // namespace gnh
