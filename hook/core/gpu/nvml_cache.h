// The NVML cache: what NVML knows and the driver's procfs does not (MIG devices, their UUIDs,
// `<gpu>:<mig>` indices and each instance's memory node), written by `gpu-numa-hook topology
// --refresh` from the gpu-numa-nvml-probe's output and read by the hook only for a container that
// needs it (docs/platforms/mig.md). The file is root's, but it is parsed as if hostile: strict types, bounded
// sizes, every field checked. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gnh {

struct CachedMigDevice {
  unsigned index = 0;                // NVML's MIG device index under its GPU: the `<mig>` of `<gpu>:<mig>`
  std::string uuid;                  // "MIG-<uuid>"
  unsigned gpu_instance_id = 0;
  unsigned compute_instance_id = 0;
  std::optional<int> memory_node;    // nvmlDeviceGetNumaNodeId on the MIG device; nullopt = none (-1)
};

struct CachedGpu {
  unsigned index = 0;                // NVML's index (PCI bus id order, as the hook's)
  std::string uuid;                  // "GPU-<uuid>"
  unsigned minor = 0;
  std::string bus_id;                // canonical "0000:01:00.0"
  std::optional<int> memory_node;    // nvmlDeviceGetNumaNodeId; nullopt = none (-1, NOT_SUPPORTED)
  std::string mig_mode;              // "enabled", "disabled", "unsupported"
  std::vector<CachedMigDevice> mig_devices;
  // For NVIDIA_REQUIRE_* (docs/reference/cuda-requirements.md); absent from caches of older probes.
  std::optional<std::string> brand;               // nvmlDeviceGetBrand as a requirement's name: "tesla", "nvidia"
  std::optional<std::string> compute_capability;  // nvmlDeviceGetCudaComputeCapability: "9.0"
};

// The generation a cache belongs to is (boot_id, driver_version): after a reboot or a driver
// reload with another version the MIG layout it describes is gone.
struct NvmlCache {
  std::string boot_id;          // /proc/sys/kernel/random/boot_id when it was written
  std::string driver_version;   // nvmlSystemGetDriverVersion ("570.124.06")
  std::optional<std::string> cuda_version;  // nvmlSystemGetCudaDriverVersion_v2 as "13.0"; absent: older probe
  std::vector<CachedGpu> gpus;
};

constexpr int kNvmlCacheFormat = 1;
// A real cache is ~300 bytes per MIG device; 8 GPUs x 7 instances fit many times over.
constexpr size_t kMaxNvmlCacheBytes = 256 * 1024;
constexpr size_t kMaxCachedGpus = 64;
constexpr size_t kMaxCachedMigDevices = 64;  // per GPU (NVML's maximum today is 7)
constexpr const char* kDefaultNvmlCachePath = "/run/gpu-numa-hook/nvml-cache.json";

// nullopt with *why set when the text is not a cache of this format (each problem named with its
// JSON path, e.g. "gpus[1].mig_devices[0].memory_node: not an integer in -1..1023").
std::optional<NvmlCache> parse_nvml_cache(std::string_view text, std::string* why = nullptr);
// The cache as `topology --refresh` writes it: one JSON object, a newline at the end.
std::string nvml_cache_json(const NvmlCache& cache);

// Why a cache does not describe the host now ("" when it does): another boot or driver version.
// An empty current driver version (no /proc/driver/nvidia/version) is a mismatch too.
std::string nvml_cache_staleness(const NvmlCache& cache, std::string_view boot_id, std::string_view driver_version);

// The driver version in /proc/driver/nvidia/version's first line ("NVRM version: NVIDIA UNIX ...
// Kernel Module  570.124.06  Release Build ..."): the first blank-separated word made of digits and
// dots with at least one dot. nullopt when there is none.
std::optional<std::string> parse_driver_version(std::string_view proc_version_text);

// The cached GPU with this UUID (case-insensitive, as the toolkit compares them), or nullptr.
const CachedGpu* find_cached_gpu(const NvmlCache& cache, std::string_view uuid);

}  // namespace gnh
