#include "gpu/memory_state.h"

#include <cerrno>

#include "gpu/self_onlining.h"

namespace gnh {

const char* to_string(GpuMemoryState s) {
  switch (s) {
    case GpuMemoryState::none: return "none";
    case GpuMemoryState::disabled: return "disabled";
    case GpuMemoryState::mig: return "mig";
    case GpuMemoryState::unreadable: return "unreadable";
    case GpuMemoryState::impossible_node: return "impossible_node";
    case GpuMemoryState::failed: return "failed";
    case GpuMemoryState::going_offline: return "going_offline";
    case GpuMemoryState::offline: return "offline";
    case GpuMemoryState::not_initialized: return "not_initialized";
    case GpuMemoryState::wont_online: return "wont_online";
    case GpuMemoryState::not_in_kernel: return "not_in_kernel";
    case GpuMemoryState::not_in_root: return "not_in_root";
    case GpuMemoryState::usable: return "usable";
  }
  return "?";
}

GpuMemoryState classify_gpu_memory(const Gpu& g, const HostMemoryFacts& host) {
  if (g.memory_read_errno == EIO) return GpuMemoryState::mig;
  if (g.memory_read_errno != 0) return GpuMemoryState::unreadable;
  if (!g.memory_node) return GpuMemoryState::none;
  const std::string status = g.memory_status.value_or("");
  if (status == "disabled") return GpuMemoryState::disabled;
  int node = *g.memory_node;
  // Checked first: waiting cannot help a node that will never exist.
  if (!host.possible_nodes.empty() && !host.possible_nodes.contains(node)) return GpuMemoryState::impossible_node;
  if (status == "online_failed" || status == "offline_failed") return GpuMemoryState::failed;
  if (status == "offline_in_progress") return GpuMemoryState::going_offline;
  // Grace: "offline" is the state before the GPU's initialization, not a slow onlining.
  if (status == "offline" && g.self_onlining) {
    bool movable = host.auto_online_blocks.empty() || host.auto_online_blocks == kAutoOnlineNeeded;
    return movable ? GpuMemoryState::not_initialized : GpuMemoryState::wont_online;
  }
  if (!g.memory_online()) return GpuMemoryState::offline;  // offline, online_in_progress, "invalid", ...
  if (!host.memory_nodes.contains(node)) return GpuMemoryState::not_in_kernel;
  if (!host.root_mems.contains(node)) return GpuMemoryState::not_in_root;
  return GpuMemoryState::usable;
}

}  // namespace gnh
