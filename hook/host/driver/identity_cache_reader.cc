#include "host/driver/identity_cache_reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>

#include "base/error.h"
#include "base/text.h"
#include "gpu/driver_files.h"
#include "host/driver/nvml_cache_reader.h"
#include "host/fs/atomic_file.h"

namespace gnh {

std::optional<uint64_t> GpuBindings::of(std::string_view gpu_dir) const {
  auto bus = canonical_pci_address(gpu_dir);
  if (!bus) return std::nullopt;
  auto it = std::lower_bound(links_.begin(), links_.end(), *bus,
                             [](const std::pair<std::string, uint64_t>& l, const std::string& b) { return l.first < b; });
  if (it == links_.end() || it->first != *bus) return std::nullopt;
  return it->second;
}

GpuBindings read_gpu_bindings(const HostFs& fs) {
  GpuBindings b;
  try {
    if (auto dir = fs.open_dir(kNvidiaDriverPath)) b.links_ = dir->entries();
  } catch (const Error&) {
    b.links_.clear();  // nothing proven bound: every GPU is read from the driver
  }
  return b;
}

std::optional<IdentityCache> load_identity_cache(const HostFs& fs) {
  try {
    auto text = fs.read(kIdentityCachePath, kMaxIdentityCacheBytes + 1);
    if (!text) return std::nullopt;
    auto cache = parse_identity_cache(*text);
    if (!cache || cache->boot_id != read_boot_id(fs)) return std::nullopt;
    return cache;
  } catch (const Error&) {
    return std::nullopt;
  }
}

IdentityCache build_identity_cache(const HostFs& fs, IdentitiesLeftOut* left_out) {
  IdentitiesLeftOut ignored;
  IdentitiesLeftOut& out = left_out ? *left_out : ignored;
  IdentityCache cache;
  cache.boot_id = read_boot_id(fs);
  auto dir = fs.open_dir("/proc/driver/nvidia/gpus");
  if (!dir) return cache;
  const GpuBindings before = read_gpu_bindings(fs);
  std::vector<CachedIdentity> read;
  for (const auto& name : dir->names()) {
    const auto binding = before.of(name);
    if (!binding) {
      out.not_bound.push_back(name);
      continue;
    }
    std::optional<std::string> text;
    try {
      text = dir->read(name + "/information", kMaxCachedInformationBytes, ReadEnd::at_short_read);
    } catch (const Error&) {
      continue;  // left to the hook, which reads it from the driver and says what is wrong
    }
    auto id = text ? gpu_identity(name, *text) : std::nullopt;
    if (!id) continue;
    // Without its UUID (the GPU not initialised yet) the entry would stand for the whole boot.
    if (!is_gpu_uuid(id->uuid)) {
      out.no_uuid.push_back(name);
      continue;
    }
    read.push_back({std::move(*id), *binding});
  }
  // A GPU bound again while its file was read is left out: its file may be the old binding's.
  const GpuBindings after = read_gpu_bindings(fs);
  for (auto& g : read) {
    if (after.of(g.identity.dir) == g.binding)
      cache.gpus.push_back(std::move(g));
    else
      out.not_bound.push_back(g.identity.dir);
  }
  return cache;
}

void write_identity_cache(const HostFs& fs, const IdentityCache& cache) {
  std::string file = fs.resolve(kIdentityCachePath);
  if (cache.boot_id.empty())
    fail("cannot write the GPU identity cache " + file + ": " + fs.resolve(kBootIdPath) + " is missing", ENOENT);
  std::string dir = file.substr(0, file.rfind('/'));
  if (!dir.empty() && ::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    fail_errno("cannot create " + dir + " for the GPU identity cache", errno);
  // /run is a tmpfs that does not outlive the boot: rename alone keeps readers safe.
  write_file_atomically(file, identity_cache_text(cache), 0644, Durability::replaced);
}

}  // namespace gnh
