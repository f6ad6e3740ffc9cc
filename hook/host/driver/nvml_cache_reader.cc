#include "host/driver/nvml_cache_reader.h"

#include <sys/stat.h>

#include <cerrno>

#include "base/error.h"
#include "base/text.h"
#include "gpu/mig_devices.h"
#include "host/driver/mig_layout_reader.h"
#include "host/fs/atomic_file.h"

namespace gnh {

namespace {
constexpr const char* kRefreshHint = "run 'gpu-numa-hook topology --refresh' (the gpu-numa-hook-topology service, or the DaemonSet's nvml-refresh container)";
}  // namespace

std::string read_boot_id(const HostFs& fs) {
  auto text = fs.read(kBootIdPath, 256);
  return text ? std::string(trim(*text)) : std::string();
}

std::string read_driver_version(const HostFs& fs) {
  auto text = fs.read("/proc/driver/nvidia/version", 4096);
  auto v = text ? parse_driver_version(*text) : std::nullopt;
  return v.value_or("");
}

void write_nvml_cache(const HostFs& fs, const std::string& path, const NvmlCache& cache) {
  std::string file = fs.resolve(path);
  std::string dir = file.substr(0, file.rfind('/'));
  if (!dir.empty() && ::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    fail_errno("cannot create " + dir + " for the NVML cache", errno);
  // /run is a tmpfs that does not outlive the boot: rename alone keeps readers safe.
  write_file_atomically(file, nvml_cache_json(cache), 0644, Durability::replaced);
}

NvmlCacheLoad load_nvml_cache(const HostFs& fs, const std::string& path) {
  NvmlCacheLoad load;
  const std::string where = "NVML cache " + fs.resolve(path);
  try {
    auto text = fs.read(path, kMaxNvmlCacheBytes);
    if (!text) {
      load.problem = where + " is missing; " + kRefreshHint;
      return load;
    }
    std::string why;
    auto cache = parse_nvml_cache(*text, &why);
    if (!cache) {
      load.problem = where + " is malformed (" + why + "); " + kRefreshHint;
      return load;
    }
    std::string stale = nvml_cache_staleness(*cache, read_boot_id(fs), read_driver_version(fs));
    if (!stale.empty()) {
      load.problem = where + " is stale (" + stale + "); " + kRefreshHint;
      return load;
    }
    load.cache = std::move(cache);
  } catch (const Error& e) {
    load.problem = std::string(e.what()) + "; " + kRefreshHint;
  }
  return load;
}

std::string add_cached_mig_instances(const HostFs& fs, const std::string& path, Inventory& inv,
                                     std::vector<std::string>* unknown) {
  bool any = false;
  for (const auto& g : inv.gpus) any = any || g.memory_read_errno == EIO;
  if (!any) return "";
  NvmlCacheLoad load = load_nvml_cache(fs, path);
  if (!load.cache) {
    if (unknown)
      for (const auto& g : inv.gpus)
        if (g.memory_read_errno == EIO) unknown->push_back(g.device_path());
    return load.problem;
  }
  std::string problem;
  for (size_t i = 0; i < inv.gpus.size(); ++i) {
    if (inv.gpus[i].memory_read_errno != EIO) continue;
    // A GPU re-partitioned since the cache was written keeps its instances unknown.
    std::string stale = mig_layout_staleness(fs, *load.cache, inv.gpus[i].minor, inv.gpus[i].uuid);
    if (!stale.empty()) {
      if (problem.empty()) problem = stale;
      if (unknown) unknown->push_back(inv.gpus[i].device_path());
      continue;
    }
    inv.gpus[i].mig_instances = mig_instances_for(i, inv, *load.cache, {}, {});
  }
  return problem;
}

}  // namespace gnh
