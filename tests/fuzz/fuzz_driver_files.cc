// The NVIDIA driver's procfs files (information, numa_status, params) and sysfs numa_node: lenient parsing must never crash, and
// what it accepts must be in range (a minor for /dev/nvidiaN, a node id under the kernel limit). The GPU identity cache, built
// from them: what its strict parser accepts it writes back byte for byte, within its bounds.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gpu/driver_files.h"
#include "gpu/identity_cache.h"
#include "gpu/memory_mode.h"
#include "base/node_set.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string why;
  if (auto info = gnh::parse_gpu_information(text, &why)) {
    if (!info->minor || *info->minor > 254) __builtin_trap();
  }
  if (auto id = gnh::gpu_identity("0000:00:06.0", text)) {
    if (id->minor > 254 || id->model.size() > gnh::kMaxModelBytes || id->bus_id.empty()) __builtin_trap();
    for (char c : id->model)
      if (c < 0x20 || c > 0x7e) __builtin_trap();
  }
  if (auto cache = gnh::parse_identity_cache(text)) {
    if (gnh::identity_cache_text(*cache) != text || cache->gpus.size() > gnh::kMaxCachedIdentities) __builtin_trap();
    for (const auto& g : cache->gpus)
      if (!gnh::is_gpu_uuid(g.identity.uuid) || g.identity.minor > 254 || g.binding == 0) __builtin_trap();
  }
  if (auto ns = gnh::parse_numa_status(text, &why)) {
    if (ns->node && (*ns->node < 0 || *ns->node >= gnh::NodeSet::kMaxNodes)) __builtin_trap();
  }
  if (auto n = gnh::parse_sysfs_numa_node(text)) {
    if (*n < 0 || *n >= gnh::NodeSet::kMaxNodes) __builtin_trap();
  }
  if (auto bus = gnh::canonical_pci_address(text)) {
    // Canonical form is a fixed point.
    auto again = gnh::canonical_pci_address(*bus);
    if (!again || *again != *bus || bus->size() != 12) __builtin_trap();
  }
  // params: a mode other than unknown only with a CoherentGPUMemoryMode or EnableUserNUMAManagement: 0 line seen.
  auto mode = gnh::parse_memory_mode(text);
  if (mode.mode != gnh::MemoryMode::unknown && mode.params_line.empty() && mode.user_numa_off_line.empty())
    __builtin_trap();
  return 0;
}
