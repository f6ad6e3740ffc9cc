#include "host/driver/identity_cache_reader.h"

#include <sys/stat.h>

#include <cerrno>

#include "base/error.h"
#include "base/text.h"
#include "gpu/driver_files.h"
#include "host/driver/nvml_cache_reader.h"
#include "host/fs/atomic_file.h"

namespace gnh {

std::optional<uint64_t> read_gpu_binding(const HostFs& fs, std::string_view gpu_dir) {
  auto bus = canonical_pci_address(gpu_dir);
  if (!bus) return std::nullopt;
  try {
    return fs.entry_inode(std::string(kPciDevicesPath) + "/" + *bus + "/driver");
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::optional<uint64_t> read_gpu_binding(const HostDir& pci_devices, std::string_view gpu_dir) {
  auto bus = canonical_pci_address(gpu_dir);
  if (!bus) return std::nullopt;
  try {
    return pci_devices.entry_inode(*bus + "/driver");
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::optional<HostDir> open_pci_devices(const HostFs& fs) {
  try {
    return fs.open_dir(kPciDevicesPath);
  } catch (const Error&) {
    return std::nullopt;
  }
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

IdentityCache build_identity_cache(const HostFs& fs, std::vector<std::string>* no_uuid) {
  IdentityCache cache;
  cache.boot_id = read_boot_id(fs);
  auto dir = fs.open_dir("/proc/driver/nvidia/gpus");
  if (!dir) return cache;
  for (const auto& name : dir->names()) {
    const auto before = read_gpu_binding(fs, name);
    if (!before) continue;
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
      if (no_uuid) no_uuid->push_back(name);
      continue;
    }
    if (read_gpu_binding(fs, name) != before) continue;
    cache.gpus.push_back({std::move(*id), *before});
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
