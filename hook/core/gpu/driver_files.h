// Parsers for the NVIDIA driver's procfs files (kernel-open/nvidia/nv-procfs.c formats). Pure: text
// in, values out. Lenient on unknown keys and spacing, strict on the values we use.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gnh {

struct GpuInformation {
  std::string model;
  std::string uuid;
  std::string bus_location;
  std::optional<unsigned> minor;
  bool excluded = false;
};

struct NumaStatus {
  std::optional<int> node;     // -1 in the file becomes nullopt
  std::string status;          // "online", "offline", "online_in_progress", ...
};

// /proc/driver/nvidia/gpus/<bus>/information. Returns nullopt (with *why) when Device Minor is
// missing or not a number in 0..254.
std::optional<GpuInformation> parse_gpu_information(std::string_view text, std::string* why = nullptr);
// /proc/driver/nvidia/gpus/<bus>/numa_status.
std::optional<NumaStatus> parse_numa_status(std::string_view text, std::string* why = nullptr);
// A MIG capability's access file (/proc/driver/nvidia/capabilities/gpu<minor>/mig/gi<GI>/access,
// .../ci<CI>/access): the minor of its /dev/nvidia-caps/nvidia-cap<N>, from "DeviceFileMinor: <N>";
// nullopt without that line or with a value that is not one.
std::optional<unsigned> parse_capability_minor(std::string_view text);
// sysfs numa_node: a signed decimal; -1 (no affinity) and garbage both give nullopt.
std::optional<int> parse_sysfs_numa_node(std::string_view text);

// Canonical PCI address "dddd:bb:ss.f" in lower case from the forms users and tools write:
// "0000:00:06.0", "00:06.0", NVML's "00000000:06:00.0". nullopt when it is not an address.
std::optional<std::string> canonical_pci_address(std::string_view text);

}  // namespace gnh
