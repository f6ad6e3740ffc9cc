#include "host/driver_reader.h"

#include <algorithm>

#include "base/error.h"
#include "gpu/driver_files.h"

namespace gnh {

namespace {
constexpr const char* kGpusDir = "/proc/driver/nvidia/gpus";
}  // namespace

Inventory read_inventory(const HostFs& fs, const std::vector<TopologyOverride>& overrides) {
  Inventory inv;
  for (const auto& name : fs.list_dir(kGpusDir).value_or(std::vector<std::string>())) {
    std::string dir = std::string(kGpusDir) + "/" + name;
    std::string why;
    auto info_text = fs.read(dir + "/information");
    if (!info_text) continue;  // not a GPU directory (the driver only makes GPU ones)
    auto info = parse_gpu_information(*info_text, &why);
    if (!info) fail("cannot parse " + fs.resolve(dir + "/information") + ": " + why);
    Gpu g;
    g.minor = *info->minor;
    g.uuid = info->uuid;
    g.model = info->model;
    auto canon = canonical_pci_address(info->bus_location.empty() ? name : info->bus_location);
    g.bus_id = canon ? *canon : name;
    if (auto ns_text = fs.read(dir + "/numa_status")) {
      auto ns = parse_numa_status(*ns_text, &why);
      if (!ns) fail("cannot parse " + fs.resolve(dir + "/numa_status") + ": " + why);
      g.memory_node = ns->node;
      g.memory_status = ns->status;
    }
    if (auto nn = fs.read("/sys/bus/pci/devices/" + g.bus_id + "/numa_node"))
      g.affinity_node = parse_sysfs_numa_node(*nn);
    inv.gpus.push_back(std::move(g));
  }
  std::sort(inv.gpus.begin(), inv.gpus.end(), [](const Gpu& a, const Gpu& b) { return a.bus_id < b.bus_id; });
  apply_overrides(inv, overrides);
  return inv;
}

NodeSet read_possible_nodes(const HostFs& fs) {
  auto text = fs.read("/sys/devices/system/node/possible");
  if (!text) return {};
  auto set = NodeSet::parse(*text);
  return set ? *set : NodeSet();
}

NodeSet read_memory_nodes(const HostFs& fs) {
  for (const char* f : {"/sys/devices/system/node/has_memory", "/sys/devices/system/node/online"}) {
    if (auto text = fs.read(f)) {
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
