#include "gpu/mig_devices.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "base/text.h"

namespace gnh {

namespace {

bool equal_ci(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::optional<size_t> inventory_index(const Inventory& inv, std::string_view uuid) {
  for (size_t i = 0; i < inv.gpus.size(); ++i)
    if (equal_ci(inv.gpus[i].uuid, uuid)) return i;
  return std::nullopt;
}

MigInstance instance_of(const CachedGpu& g, const CachedMigDevice& m) {
  return {m.uuid, std::to_string(g.index) + ":" + std::to_string(m.index), m.gpu_instance_id, m.compute_instance_id,
          m.memory_node};
}

bool parse_unsigned(std::string_view s, unsigned* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return !s.empty() && ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

MigResolution resolve_mig_references(const std::vector<std::string>& references, const Inventory& inv,
                                     const NvmlCache& cache) {
  MigResolution res;
  for (const auto& ref : references) {
    bool matched = false;
    size_t colon = ref.find(':');
    unsigned gpu_index = 0, mig_index = 0;
    bool by_index = colon != std::string::npos && parse_unsigned(std::string_view(ref).substr(0, colon), &gpu_index) &&
                    parse_unsigned(std::string_view(ref).substr(colon + 1), &mig_index);
    for (const auto& g : cache.gpus) {
      if (by_index && g.index != gpu_index) continue;
      auto parent = inventory_index(inv, g.uuid);
      for (const auto& m : g.mig_devices) {
        if (by_index ? m.index != mig_index : !equal_ci(m.uuid, ref)) continue;
        if (parent) {
          res.found.push_back({ref, *parent, instance_of(g, m)});
          matched = true;
        }
        break;
      }
      if (matched) break;
    }
    if (!matched) res.unresolved.push_back(ref);
  }
  return res;
}

std::vector<MigInstance> mig_instances_for(size_t gpu, const Inventory& inv, const NvmlCache& cache,
                                           const GpuRequest& req, const MigResolution& res,
                                           const std::vector<unsigned>& given_gpu_instances) {
  std::vector<MigInstance> named;
  auto add = [&](const MigInstance& i) {
    if (std::none_of(named.begin(), named.end(), [&](const MigInstance& m) { return m.uuid == i.uuid; }))
      named.push_back(i);
  };
  for (const auto& f : res.found)
    if (f.gpu == gpu) add(f.instance);
  const CachedGpu* g = gpu < inv.gpus.size() ? find_cached_gpu(cache, inv.gpus[gpu].uuid) : nullptr;
  if (g)
    for (const auto& m : g->mig_devices)
      if (std::find(given_gpu_instances.begin(), given_gpu_instances.end(), m.gpu_instance_id) != given_gpu_instances.end())
        add(instance_of(*g, m));
  bool whole = std::find(req.whole.begin(), req.whole.end(), gpu) != req.whole.end();
  if (!named.empty() && !whole) return named;
  std::vector<MigInstance> all;
  if (g)
    for (const auto& m : g->mig_devices) all.push_back(instance_of(*g, m));
  return all;
}

Gpu mig_instance_memory(const Gpu& parent, const MigInstance& instance) {
  Gpu g = parent;
  g.memory_read_errno = 0;
  g.memory_read_error.clear();
  g.memory_node = instance.memory_node;
  g.memory_status = "online";
  g.self_onlining = false;
  return g;
}

std::vector<Gpu> memories_by_node(const std::vector<Gpu>& gpus, const HostMemoryFacts& host) {
  std::vector<Gpu> out;
  for (const auto& g : gpus) {
    if (g.mig_instances.empty() || classify_gpu_memory(g, host) != GpuMemoryState::mig) {
      out.push_back(g);
      continue;
    }
    for (const auto& m : g.mig_instances)
      if (m.memory_node) out.push_back(mig_instance_memory(g, m));
  }
  return out;
}

}  // namespace gnh
