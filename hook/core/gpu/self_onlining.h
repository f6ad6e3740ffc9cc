// Grace Hopper / Grace Blackwell: GPUs whose driver adds their memory to the kernel itself, at GPU
// initialization (nv-pci.c: nv_init_coherent_link_info sets use_auto_online for the self-hosted
// PCI device ids of detect-self-hosted.h; RM kmemsysNumaAddMemory_GH100 -> add_memory_driver_managed).
// Without persistence mode the GPU is initialized by its first client, so numa_status says
// "offline" until then; and the driver onlines the memory only into ZONE_MOVABLE, which needs
// /sys/devices/system/memory/auto_online_blocks = online_movable. docs/platforms/grace.md has the source
// lines. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gnh {

// The PCI device id ranges of detect-self-hosted.h (GH100 0x2340-0x237f; GB100 0x2940-0x297f,
// GB110 0x31c0-0x31ff, 0x31a1).
bool is_self_hosted_device_id(unsigned device_id);
// sysfs "device": "0x2342\n"; nullopt when it is not a hex id.
std::optional<unsigned> parse_pci_device_id(std::string_view text);
// The information file's Model when no device id can be read: "NVIDIA GH200 480GB", "NVIDIA GB200".
bool is_self_hosted_model(std::string_view model);

// The only auto_online_blocks value under which the driver's add_memory_driver_managed succeeds.
constexpr const char* kAutoOnlineNeeded = "online_movable";

// Wording shared by the hook, explain, topology, check and wait.
std::string not_initialized_text();                 // "not initialized (persistence mode off)"
std::string wont_online_text(const std::string& auto_online_blocks);
constexpr const char* kPersistenceFix = "enable persistence mode (start nvidia-persistenced, or 'nvidia-smi -pm 1')";

}  // namespace gnh
