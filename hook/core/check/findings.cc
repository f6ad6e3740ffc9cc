#include "check/findings.h"

#include "cgroup/cpuset_mems.h"
#include "gpu/mig_devices.h"
#include "gpu/self_onlining.h"

namespace gnh {

HostNodes host_nodes_from(const Inventory& inv, const NodeSet& memory, const NodeSet* cpu_nodes,
                          const NodeSet& possible, const std::string& auto_online_blocks) {
  HostNodes n;
  n.memory = memory;
  n.late = cpu_nodes ? memory - *cpu_nodes : memory;
  // The root's own lack of a node is root_missing's to report (find_problems): classify as if the
  // root had every memory node, so not_in_root never shows here.
  const HostMemoryFacts host{memory, memory, possible, auto_online_blocks};
  // A GPU in MIG mode whose instances the NVML cache named: each instance's node counts.
  const std::vector<Gpu> memories = memories_by_node(inv.gpus, host);
  for (const auto& g : memories) {
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
      case GpuMemoryState::not_initialized:
        why = not_initialized_text() + ": the driver adds its memory at the GPU's first client; containers on "
              "cgroup v2 inherit it then, on cgroup v1 they are refused: " + kPersistenceFix;
        break;
      case GpuMemoryState::wont_online:
        why = not_initialized_text() + " and " + wont_online_text(auto_online_blocks);
        break;
      default: why = status; break;
    }
    n.gpu_offline.push_back({g.device_path(), g.bus_id, g.memory_node.value_or(-1), status, s, why});
    // A GPU node on its way online is late by definition, whatever has_cpu says.
    if (g.memory_node && s != GpuMemoryState::impossible_node) n.late.add(*g.memory_node);
  }
  n.late |= n.gpu_online;
  return n;
}

FindingsBuilder::FindingsBuilder(CgroupVersion version, std::string mount_point, const NodeSet& root_mems,
                                 const HostNodes& nodes)
    : nodes_(nodes) {
  f_.version = version;
  f_.mount_point = std::move(mount_point);
  f_.cgroups = 1;
  f_.host_memory = nodes.memory;
  f_.gpu_online = nodes.gpu_online;
  f_.gpu_offline = nodes.gpu_offline;
  f_.root_mems = root_mems;
  f_.root_missing = nodes.memory - root_mems;
}

NodeSet FindingsBuilder::add(std::string_view path, const NodeSet& parent, const NodeSet& mems, bool has_mems) {
  ++f_.cgroups;
  // Empty: a v2 cgroup inheriting, or a v1 cpuset never configured (it cannot hold tasks).
  if (!has_mems || mems.empty()) return parent;
  NodeSet lacking = parent - mems;
  bool stale = !lacking.empty() && lacking.is_subset_of(nodes_.late);
  NodeSet now = stale ? mems | lacking : mems;
  if (stale) f_.stale.push_back({std::string(path), mems, now, lacking});
  NodeSet gpu_gap = nodes_.gpu_online - mems;
  if (!gpu_gap.empty()) f_.missing_gpu_node.push_back({std::string(path), mems, gpu_gap, stale});
  // What this cgroup allows once the fix is done: the reference its children are compared with.
  return f_.version == CgroupVersion::v2 ? v2_effective_mems(now, true, parent) : now;
}

CheckFindings find_problems(const CpusetSnapshot& snap, const HostNodes& nodes) {
  if (snap.cgroups.empty()) {
    CheckFindings f;
    f.version = snap.version;
    f.mount_point = snap.mount_point;
    f.host_memory = nodes.memory;
    f.gpu_online = nodes.gpu_online;
    f.gpu_offline = nodes.gpu_offline;
    return f;
  }
  FindingsBuilder b(snap.version, snap.mount_point, snap.cgroups[0].mems, nodes);
  std::vector<NodeSet> fixed(snap.cgroups.size());
  fixed[0] = b.root_fixed();
  for (size_t i = 1; i < snap.cgroups.size(); ++i) {
    const CgroupRecord& c = snap.cgroups[i];
    fixed[i] = b.add(c.path, fixed[static_cast<size_t>(c.parent)], c.mems, c.has_mems);
  }
  return b.take();
}

std::vector<PatchStep> plan_check_fix(const CheckFindings& findings) {
  std::vector<PatchStep> steps;
  for (const auto& s : findings.stale) steps.push_back({s.path, s.mems, s.expected});
  return steps;
}

}  // namespace gnh
