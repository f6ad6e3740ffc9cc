#include "host/driver/driver_reader.h"

#include <algorithm>
#include <cerrno>

#include "base/error.h"
#include "base/text.h"
#include "gpu/driver_files.h"
#include "gpu/self_onlining.h"
#include "host/driver/identity_cache_reader.h"

namespace gnh {

namespace {
// Every file read here is a single-record kernel file: sysfs attributes and the driver's proc
// files, each made by single_open (kernel-open/nvidia/nv-procfs.c), so one read that leaves room
// has all of it (ReadEnd).
constexpr size_t kMaxDriverFile = 64 * 1024;
}  // namespace

Inventory read_gpu_identities(const GpuDirectory& gpus, const IdentitiesWanted* until) {
  Inventory inv;
  if (!gpus.dir) return inv;
  std::optional<IdentitiesFound> found;
  if (until) found.emplace(*until);
  for (const auto& name : gpus.dir->names()) {
    std::optional<GpuIdentity> id;
    const CachedIdentity* cached = gpus.identities ? gpus.identities->find(name) : nullptr;
    if (cached && gpus.bindings.of(name) == cached->binding) id = cached->identity;
    if (!id) {
      auto info_text = gpus.dir->read(name + "/information", kMaxDriverFile, ReadEnd::at_short_read);
      if (!info_text) continue;  // not a GPU directory (the driver only makes GPU ones)
      std::string why;
      id = gpu_identity(name, *info_text, &why);
      if (!id) fail("cannot parse " + gpus.dir->path() + "/" + name + "/information: " + why, EINVAL);
    }
    Gpu g;
    g.minor = id->minor;
    g.uuid = std::move(id->uuid);
    g.model = std::move(id->model);
    g.driver_dir = std::move(id->dir);
    g.bus_id = std::move(id->bus_id);
    inv.gpus.push_back(std::move(g));
    if (found && found->add(inv.gpus.back())) break;
  }
  std::sort(inv.gpus.begin(), inv.gpus.end(), [](const Gpu& a, const Gpu& b) { return a.bus_id < b.bus_id; });
  return inv;
}

void read_gpu_memory(const GpuDirectory& gpus, Gpu& g, const std::vector<TopologyOverride>& overrides,
                     ReadErrors errors, NearestNode nearest) {
  const HostFs& fs = gpus.fs;
  std::string file = g.driver_dir + "/numa_status";
  try {
    // Absent: not a coherent GPU, or the driver in CDMM mode (it then creates no numa_status).
    if (auto text = gpus.dir ? gpus.dir->read(file, kMaxDriverFile, ReadEnd::at_short_read) : std::nullopt) {
      std::string why;
      auto ns = parse_numa_status(*text, &why);
      if (!ns) fail("cannot parse " + gpus.dir->path() + "/" + file + ": " + why, EINVAL);
      g.memory_node = ns->node;
      g.memory_status = ns->status;
    }
  } catch (const Error& e) {
    // EIO: the driver has no node to name while MIG instances are active; not an error of ours.
    if (e.error_number() != EIO && errors == ReadErrors::fail) throw;
    g.memory_read_errno = e.error_number() != 0 ? e.error_number() : EINVAL;
    g.memory_read_error = e.what();
  }
  if (nearest == NearestNode::read)
    if (auto nn = fs.read("/sys/bus/pci/devices/" + g.bus_id + "/numa_node", kMaxDriverFile, ReadEnd::at_short_read))
      g.affinity_node = parse_sysfs_numa_node(*nn);
  // Only "offline" means something else on Grace (not initialized yet), so only then is the
  // PCI device id read: the driver's own test (detect-self-hosted.h), the model as a fallback.
  if (g.memory_status && *g.memory_status == "offline") {
    auto id_text = fs.read("/sys/bus/pci/devices/" + g.bus_id + "/device", kMaxDriverFile, ReadEnd::at_short_read);
    auto id = id_text ? parse_pci_device_id(*id_text) : std::nullopt;
    g.self_onlining = id ? is_self_hosted_device_id(*id) : is_self_hosted_model(g.model);
  }
  apply_overrides(g, overrides);
}

bool any_self_onlining_offline(const std::vector<Gpu>& gpus) {
  for (const auto& g : gpus)
    if (g.self_onlining && g.memory_status && *g.memory_status == "offline") return true;
  return false;
}

std::string read_auto_online_blocks(const HostFs& fs) {
  auto text = fs.read("/sys/devices/system/memory/auto_online_blocks", kMaxDriverFile, ReadEnd::at_short_read);
  return text ? std::string(trim(*text)) : std::string();
}

Inventory read_inventory(const HostFs& fs, const std::vector<TopologyOverride>& overrides, ReadErrors errors) {
  GpuDirectory gpus(fs);
  Inventory inv = read_gpu_identities(gpus);
  for (auto& g : inv.gpus) read_gpu_memory(gpus, g, overrides, errors);
  return inv;
}

Inventory read_numa_inventory(const HostFs& fs, const std::vector<TopologyOverride>& overrides, ReadErrors errors) {
  if (read_memory_mode(fs).mode == MemoryMode::driver) return {};
  return read_inventory(fs, overrides, errors);
}

DriverMemoryMode read_memory_mode(const HostFs& fs) {
  auto text = fs.read("/proc/driver/nvidia/params", kMaxDriverFile, ReadEnd::at_short_read);
  return text ? parse_memory_mode(*text) : DriverMemoryMode{};
}

NodeSet read_possible_nodes(const HostFs& fs) {
  auto text = fs.read("/sys/devices/system/node/possible", kMaxDriverFile, ReadEnd::at_short_read);
  if (!text) return {};
  auto set = NodeSet::parse(*text);
  return set ? *set : NodeSet();
}

NodeSet read_memory_nodes(const HostFs& fs) {
  for (const char* f : {"/sys/devices/system/node/has_memory", "/sys/devices/system/node/online"}) {
    if (auto text = fs.read(f, kMaxDriverFile, ReadEnd::at_short_read)) {
      std::string why;
      auto set = NodeSet::parse(*text, &why);
      if (!set) fail("cannot parse " + fs.resolve(f) + ": " + why);
      return *set;
    }
  }
  // A kernel without NUMA support exposes no node directory: everything is node 0.
  return NodeSet::of({0});
}

}  // namespace gnh
