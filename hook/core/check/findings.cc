#include "check/findings.h"

#include "cgroup/cpuset_mems.h"

namespace gnh {

HostNodes host_nodes_from(const Inventory& inv, const NodeSet& memory, const NodeSet* cpu_nodes,
                          const NodeSet& possible) {
  HostNodes n;
  n.memory = memory;
  n.late = cpu_nodes ? memory - *cpu_nodes : memory;
  // The root's own lack of a node is root_missing's to report (find_problems): classify as if the
  // root had every memory node, so not_in_root never shows here.
  const HostMemoryFacts host{memory, memory, possible};
  for (const auto& g : inv.gpus) {
    GpuMemoryState s = classify_gpu_memory(g, host);
    if (!needs_memory_node(s)) continue;
    if (s == GpuMemoryState::usable) {
      n.gpu_online.add(*g.memory_node);
      continue;
    }
    std::string status = g.memory_status.value_or("unknown");
    std::string why;
    switch (s) {
      case GpuMemoryState::not_in_kernel: why = "online, but its memory is not online in the kernel yet"; break;
      case GpuMemoryState::impossible_node: why = "not a NUMA node of this host"; break;
      case GpuMemoryState::failed: why = status + ": the driver gave up (see dmesg | grep NVRM)"; break;
      case GpuMemoryState::going_offline: why = status + ": its memory is being taken offline"; break;
      case GpuMemoryState::unreadable: why = g.memory_read_error; break;
      default: why = status; break;
    }
    n.gpu_offline.push_back({g.device_path(), g.bus_id, g.memory_node.value_or(-1), status, s, why});
    // A GPU node on its way online is late by definition, whatever has_cpu says.
    if (g.memory_node && s != GpuMemoryState::impossible_node) n.late.add(*g.memory_node);
  }
  n.late |= n.gpu_online;
  return n;
}

CheckFindings find_problems(const CpusetSnapshot& snap, const HostNodes& nodes) {
  CheckFindings f;
  f.version = snap.version;
  f.mount_point = snap.mount_point;
  f.cgroups = snap.cgroups.size();
  f.host_memory = nodes.memory;
  f.gpu_online = nodes.gpu_online;
  f.gpu_offline = nodes.gpu_offline;
  if (snap.cgroups.empty()) return f;
  f.root_mems = snap.cgroups[0].mems;
  f.root_missing = nodes.memory - f.root_mems;

  // What each cgroup allows once the fix is done: the reference its children are compared with.
  std::vector<NodeSet> fixed(snap.cgroups.size());
  fixed[0] = f.root_mems;
  for (size_t i = 1; i < snap.cgroups.size(); ++i) {
    const CgroupRecord& c = snap.cgroups[i];
    const NodeSet& parent = fixed[static_cast<size_t>(c.parent)];
    // Empty: a v2 cgroup inheriting, or a v1 cpuset never configured (it cannot hold tasks).
    if (!c.has_mems || c.mems.empty()) {
      fixed[i] = parent;
      continue;
    }
    NodeSet lacking = parent - c.mems;
    bool stale = !lacking.empty() && lacking.is_subset_of(nodes.late);
    NodeSet now = stale ? c.mems | lacking : c.mems;
    if (snap.version == CgroupVersion::v2) {
      fixed[i] = v2_effective_mems(now, true, parent);
    } else {
      fixed[i] = now;
    }
    if (stale) f.stale.push_back({c.path, c.mems, now, lacking});
    NodeSet gpu_gap = nodes.gpu_online - c.mems;
    if (!gpu_gap.empty()) f.missing_gpu_node.push_back({c.path, c.mems, gpu_gap, stale});
  }
  return f;
}

std::vector<PatchStep> plan_check_fix(const CheckFindings& findings) {
  std::vector<PatchStep> steps;
  for (const auto& s : findings.stale) steps.push_back({s.path, s.mems, s.expected});
  return steps;
}

}  // namespace gnh
