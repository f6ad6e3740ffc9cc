#include "host/driver/mig_layout_reader.h"

#include <algorithm>

#include "base/error.h"
#include "gpu/driver_files.h"

namespace gnh {

namespace {
// A GPU has at most 7 GPU instances and 8 compute instances each today; a bound keeps a strange
// listing from costing a start anything.
constexpr size_t kMaxInstances = 64;

// Calls visit(gi, ci, folder) for each GPU instance folder of the GPU with this minor (ci nullopt)
// and each compute instance folder in it, until visit returns false. False when the GPU has no
// MIG capability folder. A GPU instance destroyed between two listings is skipped.
template <typename Visit>
bool walk_mig_folders(const HostFs& fs, unsigned minor, Visit visit) {
  const std::string dir = std::string(kMigCapabilitiesDir) + "/gpu" + std::to_string(minor) + "/mig";
  std::optional<std::vector<std::string>> gis = fs.list_dir(dir);
  if (!gis) return false;
  for (const auto& name : *gis) {
    std::optional<unsigned> gi = mig_instance_id(name, "gi");
    if (!gi) continue;
    const std::string gi_dir = dir + "/" + name;
    if (!visit(*gi, std::optional<unsigned>(), gi_dir)) return true;
    std::optional<std::vector<std::string>> cis = fs.list_dir(gi_dir);
    if (!cis) continue;
    for (const auto& c : *cis)
      if (std::optional<unsigned> ci = mig_instance_id(c, "ci"))
        if (!visit(*gi, ci, gi_dir + "/" + c)) return true;
  }
  return true;
}
}  // namespace

std::optional<MigLayout> read_mig_layout(const HostFs& fs, unsigned minor) {
  MigLayout layout;
  bool listed = walk_mig_folders(fs, minor, [&](unsigned gi, std::optional<unsigned> ci, const std::string&) {
    if (!ci) return true;
    layout.emplace_back(gi, *ci);
    if (layout.size() > kMaxInstances)
      fail(fs.resolve(std::string(kMigCapabilitiesDir) + "/gpu" + std::to_string(minor) + "/mig") + " lists more than " +
               std::to_string(kMaxInstances) + " MIG instances",
           EFBIG);
    return true;
  });
  if (!listed) return std::nullopt;
  std::sort(layout.begin(), layout.end());
  return layout;
}

std::vector<MigCapability> read_mig_capabilities(const HostFs& fs, unsigned minor) {
  std::vector<MigCapability> caps;
  walk_mig_folders(fs, minor, [&](unsigned gi, std::optional<unsigned>, const std::string& folder) {
    try {
      if (std::optional<std::string> text = fs.read(folder + "/access", 4096))
        if (std::optional<unsigned> m = parse_capability_minor(*text)) caps.push_back({gi, *m});
    } catch (const Error&) {
      // unreadable: that instance is not known by its nodes (the GPU then counts whole)
    }
    return caps.size() <= 2 * kMaxInstances;
  });
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
