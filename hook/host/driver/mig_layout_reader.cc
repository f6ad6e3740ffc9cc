#include "host/driver/mig_layout_reader.h"

#include <algorithm>

#include "base/error.h"

namespace gnh {

namespace {
// A GPU has at most 7 GPU instances and 8 compute instances each today; a bound keeps a strange
// listing from costing a start anything.
constexpr size_t kMaxInstances = 64;
}  // namespace

std::optional<MigLayout> read_mig_layout(const HostFs& fs, unsigned minor) {
  const std::string dir = std::string(kMigCapabilitiesDir) + "/gpu" + std::to_string(minor) + "/mig";
  std::optional<std::vector<std::string>> gis = fs.list_dir(dir);
  if (!gis) return std::nullopt;
  MigLayout layout;
  for (const auto& name : *gis) {
    std::optional<unsigned> gi = mig_instance_id(name, "gi");
    if (!gi) continue;
    std::optional<std::vector<std::string>> cis = fs.list_dir(dir + "/" + name);
    if (!cis) continue;  // destroyed between the two listings
    for (const auto& c : *cis)
      if (std::optional<unsigned> ci = mig_instance_id(c, "ci")) layout.emplace_back(*gi, *ci);
    if (layout.size() > kMaxInstances) fail(fs.resolve(dir) + " lists more than " + std::to_string(kMaxInstances) + " MIG instances", EFBIG);
  }
  std::sort(layout.begin(), layout.end());
  return layout;
}

std::vector<MigCapability> read_mig_capabilities(const HostFs& fs, unsigned minor) {
  const std::string dir = std::string(kMigCapabilitiesDir) + "/gpu" + std::to_string(minor) + "/mig";
  std::vector<MigCapability> caps;
  std::optional<std::vector<std::string>> gis = fs.list_dir(dir);
  if (!gis) return caps;
  auto add = [&](unsigned gi, const std::string& access) {
    try {
      if (std::optional<std::string> text = fs.read(access, 4096))
        if (std::optional<unsigned> m = mig_capability_minor(*text)) caps.push_back({gi, *m});
    } catch (const Error&) {
    }
  };
  for (const auto& name : *gis) {
    std::optional<unsigned> gi = mig_instance_id(name, "gi");
    if (!gi) continue;
    add(*gi, dir + "/" + name + "/access");
    std::optional<std::vector<std::string>> cis = fs.list_dir(dir + "/" + name);
    if (!cis) continue;
    for (const auto& c : *cis)
      if (mig_instance_id(c, "ci")) add(*gi, dir + "/" + name + "/" + c + "/access");
    if (caps.size() > 2 * kMaxInstances) break;
  }
  return caps;
}

std::string mig_layout_staleness(const HostFs& fs, const NvmlCache& cache, unsigned minor, const std::string& uuid) {
  const CachedGpu* cached = find_cached_gpu(cache, uuid);
  if (!cached) return "";  // resolved without this GPU's entry: nothing of it is applied
  std::string change;
  try {
    std::optional<MigLayout> live = read_mig_layout(fs, minor);
    if (!live) return "";
    change = mig_layout_change(cached_mig_layout(*cached), *live);
  } catch (const Error& e) {
    change = std::string("its MIG layout cannot be read (") + e.what() + ")";
  }
  if (change.empty()) return "";
  return "GPU /dev/nvidia" + std::to_string(minor) + " was re-partitioned since the NVML cache was written: " + change +
         "; its MIG instances' nodes are not applied until 'gpu-numa-hook topology --refresh' (the "
         "gpu-numa-hook-topology service, or the DaemonSet's nvml-refresh container) rewrites the cache";
}

std::string any_mig_layout_staleness(const HostFs& fs, const NvmlCache& cache) {
  for (const auto& g : cache.gpus)
    if (std::string why = mig_layout_staleness(fs, cache, g.minor, g.uuid); !why.empty()) return why;
  return "";
}

}  // namespace gnh
