#include "check/readiness.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "report/json_schema.h"

#include "gpu/mig_devices.h"
#include "gpu/self_onlining.h"

namespace gnh {

namespace {
std::string pending_why(const Gpu& g, GpuMemoryState s, const HostMemoryFacts& host) {
  switch (s) {
    case GpuMemoryState::not_initialized:
      return not_initialized_text() + ": its node comes with the GPU's first client; on cgroup v1 " + kPersistenceFix;
    case GpuMemoryState::wont_online: return not_initialized_text() + " and " + wont_online_text(host.auto_online_blocks);
    case GpuMemoryState::offline: return "numa_status " + g.memory_status.value_or("unknown");
    case GpuMemoryState::not_in_kernel: return "not in has_memory";
    case GpuMemoryState::not_in_root: return "not in the root cpuset";
    case GpuMemoryState::impossible_node: return "not a NUMA node of this host, it never will be";
    case GpuMemoryState::failed: return "numa_status " + g.memory_status.value_or("") + ": the driver gave up, see dmesg";
    case GpuMemoryState::going_offline: return "numa_status offline_in_progress: being taken offline";
    case GpuMemoryState::unreadable: return g.memory_read_error;
    default: return to_string(s);
  }
}
}  // namespace

bool Readiness::never() const {
  return std::any_of(pending.begin(), pending.end(),
                     [](const PendingGpuNode& p) { return needs_operator(p.state); });
}

Readiness assess_readiness(const Inventory& inv, const HostMemoryFacts& host) {
  Readiness r;
  // A GPU in MIG mode whose instances the NVML cache named: each instance's node counts.
  const std::vector<Gpu> memories = memories_by_node(inv.gpus, host);
  for (const auto& g : memories) {
    GpuMemoryState s = classify_gpu_memory(g, host);
    if (!needs_memory_node(s)) continue;  // not a coherent GPU, or its memory disabled: nothing to wait for
    if (s == GpuMemoryState::not_initialized) {
      r.not_initialized.push_back({g.device_path(), g.memory_node.value_or(-1), s, pending_why(g, s, host)});
      continue;
    }
    ++r.gpu_nodes;
    if (s != GpuMemoryState::usable) r.pending.push_back({g.device_path(), g.memory_node.value_or(-1), s, pending_why(g, s, host)});
  }
  return r;
}

namespace {
std::string node_list(const std::vector<PendingGpuNode>& nodes) {
  std::string s;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const auto& p = nodes[i];
    s += (i ? ", " : " ") + (p.node >= 0 ? std::to_string(p.node) : std::string("?")) + " (" + p.gpu + ": " + p.why + ")";
  }
  return s;
}
std::string base_line(const Readiness& r) {
  if (r.gpu_nodes == 0)
    return r.not_initialized.empty() ? "no GPU memory NUMA nodes reported by the driver"
                                     : "no GPU memory NUMA node to wait for";
  std::string s = std::to_string(r.gpu_nodes - r.pending.size()) + " of " + std::to_string(r.gpu_nodes) +
                  " GPU memory nodes ready";
  if (r.pending.empty()) return s;
  s += r.never() ? "; never ready:" : "; waiting for";
  return s + node_list(r.pending);
}
}  // namespace

std::string readiness_line(const Readiness& r) {
  std::string s = base_line(r);
  if (!r.not_initialized.empty()) s += "; not waited for:" + node_list(r.not_initialized);
  return s;
}

std::string readiness_json(const Readiness& r, const std::string& result, double waited_seconds) {
  using nlohmann::json;
  auto nodes = [](const std::vector<PendingGpuNode>& v) {
    json a = json::array();
    for (const auto& p : v)
      a.push_back({{"gpu", p.gpu}, {"node", p.node >= 0 ? json(p.node) : json(nullptr)}, {"state", to_string(p.state)},
                   {"why", p.why}});
    return a;
  };
  json j = {{"schema_version", kJsonSchemaVersion},
            {"result", result},
            {"waited_seconds", std::round(waited_seconds * 1000) / 1000},
            {"gpu_nodes", r.gpu_nodes},
            {"ready_nodes", r.gpu_nodes - std::min(r.gpu_nodes, r.pending.size())},
            {"pending", nodes(r.pending)},
            {"not_initialized", nodes(r.not_initialized)},
            {"message", readiness_line(r)}};
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

}  // namespace gnh
