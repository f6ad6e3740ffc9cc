// Which GPUs a container gets, from its config.json alone, with nvidia-container-toolkit's rules:
// linux.devices (195:N), NVIDIA_VISIBLE_DEVICES, the volume-mount form and CDI annotations.
// Pure: a Spec and an Inventory in, GPU indices out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpu/device_forms.h"
#include "gpu/gpu.h"
#include "spec.h"

namespace gnh {

struct GpuRequest {
  std::vector<size_t> gpus;             // indices into Inventory::gpus, sorted, unique
  std::vector<std::string> unresolved;  // references we could not map ("GPU-..." not on this host)
  std::vector<std::string> sources;     // where the request came from, for the log
  // MIG devices as written ("0:1", "MIG-<uuid>"), for the NVML cache (gpu/mig_devices.h). A
  // "<gpu>:<mig>" also puts its parent GPU in `gpus` (by index, as without the cache); a
  // "MIG-<uuid>" is in `unresolved` until the cache names its parent.
  std::vector<std::string> mig_references;
  // Minors of the MIG capability device nodes in linux.devices (/dev/nvidia-caps/nvidia-cap<N>),
  // sorted, unique. A MIG device resolved by a runtime (CDI in the engine or in NVIDIA's runtime)
  // reaches the spec as its parent's /dev/nvidiaN and its GPU and compute instances' capability
  // nodes: these name the instance (the driver's access files map a minor to it).
  std::vector<unsigned> mig_capability_minors;
  // GPUs requested whole by a name (index, GPU-<uuid>, bus id, "all"): a GPU in MIG mode then
  // gives the container every one of its instances. linux.devices does not count: a MIG device's
  // container gets its parent's /dev/nvidiaN too.
  std::vector<size_t> whole;
};

// Cheap test used before reading any driver file: could this container get a GPU at all?
// False is the fast path for ordinary containers. `forms`: whether NVIDIA_VISIBLE_DEVICES and its
// volume-mount list count for this container (gpu/device_forms.h); the other forms always do.
bool may_request_gpus(const oci::Spec& spec, const DeviceForms& forms);

GpuRequest resolve_gpu_request(const oci::Spec& spec, const Inventory& inventory, const DeviceForms& forms);

// The identities a request needs when it names its GPUs only by device minor (linux.devices: the
// CDI and device-node forms) or by GPU-<uuid> (the Kubernetes device plugin's names). Then the
// driver's information files are read in bus order only until each is found: a GPU's information
// file costs about 0.17 ms on an H100 (the driver asks the GPU), and the container's GPUs are
// often the first. A GPU the container does not get then neither slows nor fails its start.
struct IdentitiesWanted {
  std::vector<unsigned> minors;
  std::vector<std::string> uuids;  // as written; matched without regard to case, as resolve does
};

// Whether every wanted minor and UUID has been read, asked as the GPUs are read one by one: each
// answer costs what the new GPU crosses off (on a 64-GPU node, looking over every GPU read so far
// after each one was most of the lookup's cost).
class IdentitiesFound {
 public:
  explicit IdentitiesFound(const IdentitiesWanted& want);
  // Crosses off what `g` is; true once every wanted minor and UUID has been seen.
  bool add(const Gpu& g);

 private:
  std::vector<unsigned> minors_;    // sorted, not seen yet
  std::vector<std::string> uuids_;  // not seen yet
};
// nullopt when some reference needs every GPU's identity ("all", an index, a bus id, a MIG
// device, the legacy CUDA image's implicit "all"), or when nothing names a GPU.
std::optional<IdentitiesWanted> identities_wanted(const oci::Spec& spec, const DeviceForms& forms);

// One reference as the toolkit accepts it ("0", "GPU-<uuid>", "0000:00:06.0", "MIG-<uuid>",
// "0:1", "all"); appends the matching indices. Returns false when it matches nothing.
bool resolve_device_reference(std::string_view ref, const Inventory& inventory, std::vector<size_t>* out);

// "MIG-<uuid>" or "<gpu>:<mig>".
bool is_mig_reference(std::string_view ref);

constexpr size_t kMaxMigReferences = 448;
constexpr int kNvidiaMajor = 195;
// 195:N below these is a GPU. 254 is /dev/nvidia-modeset, which NVIDIA's CDI specs add to every
// GPU device (it names no GPU), 255 /dev/nvidiactl. /dev/nvidia-uvm* and /dev/nvidia-caps/* have
// majors of their own.
constexpr int kNvidiaModesetMinor = 254;
constexpr int kNvidiactlMinor = 255;
constexpr const char* kVisibleDevicesEnv = "NVIDIA_VISIBLE_DEVICES";
constexpr const char* kDeviceMountDir = "/var/run/nvidia-container-devices/";
constexpr const char* kCdiAnnotationPrefix = "cdi.k8s.io/";
constexpr const char* kCdiGpuKind = "nvidia.com/gpu=";
// The driver's MIG capability nodes (major "nvidia-caps" in /proc/devices, assigned at load).
constexpr const char* kMigCapabilityDevicePrefix = "/dev/nvidia-caps/nvidia-cap";

}  // namespace gnh
