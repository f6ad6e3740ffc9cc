#include "wait_readiness.h"

namespace gnh {

Readiness assess_readiness(const Inventory& inv, const NodeSet& memory_nodes, const NodeSet& root_mems) {
  Readiness r;
  for (const auto& g : inv.gpus) {
    if (!g.memory_node) continue;  // not a coherent GPU (PCIe, or CDMM mode): nothing to wait for
    ++r.gpu_nodes;
    int node = *g.memory_node;
    if (!g.memory_online())
      r.pending.push_back({g.device_path(), node, "numa_status " + g.memory_status.value_or("unknown")});
    else if (!memory_nodes.contains(node))
      r.pending.push_back({g.device_path(), node, "not in has_memory"});
    else if (!root_mems.contains(node))
      r.pending.push_back({g.device_path(), node, "not in the root cpuset"});
  }
  return r;
}

std::string readiness_line(const Readiness& r) {
  if (r.gpu_nodes == 0) return "no GPU memory NUMA nodes reported by the driver";
  std::string s = std::to_string(r.gpu_nodes - r.pending.size()) + " of " + std::to_string(r.gpu_nodes) +
                  " GPU memory nodes ready";
  if (r.pending.empty()) return s;
  s += "; waiting for";
  for (size_t i = 0; i < r.pending.size(); ++i) {
    const auto& p = r.pending[i];
    s += (i ? ", " : " ") + std::to_string(p.node) + " (" + p.gpu + ": " + p.why + ")";
  }
  return s;
}

}  // namespace gnh
