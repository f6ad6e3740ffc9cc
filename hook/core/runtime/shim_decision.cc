#include "runtime/shim_decision.h"

#include "base/text.h"
#include "gpu/gpu_request.h"
#include "spec.h"

namespace gnh {

namespace {

// Runtimes that run the spec as written.
bool adds_nothing_to_spec(std::string_view runtime) {
  const std::string_view name = base_name(runtime);
  return name == "runc" || name == "crun";
}

// nvidia-container-runtime in each mode (.cdi, .legacy).
bool is_nvidia_container_runtime(std::string_view runtime) { return base_name(runtime).rfind("nvidia-container-runtime", 0) == 0; }

// Whether config.json carries anything NVIDIA's runtime turns into a GPU in some mode or
// configuration: its variables (NVIDIA_VISIBLE_DEVICES, the legacy CUDA image's CUDA_VERSION, the
// feature ones it reads only beside a device), a CDI device of NVIDIA's under any annotation key
// (its config.toml may accept other prefixes than cdi.k8s.io/), a device volume mount.
bool shows_anything_nvidia(const oci::Spec& spec) {
  for (const std::string& e : spec.env)
    if (e.rfind("NVIDIA_", 0) == 0 || e.rfind("CUDA_VERSION=", 0) == 0) return true;
  for (const auto& [key, value] : spec.annotations)
    if (value.find("nvidia.com/") != std::string::npos) return true;
  for (const auto& m : spec.mounts)
    if (m.destination.rfind(kDeviceMountDir, 0) == 0) return true;
  return false;
}

}  // namespace

ShimDecision decide_shim_registration(std::string_view config_json, std::string_view next_runtime,
                                      std::string_view next_hook) {
  ShimDecision d;
  const bool nvidia = is_nvidia_container_runtime(next_runtime);
  if (!adds_nothing_to_spec(next_runtime) && !nvidia) return d;
  try {
    const oci::Spec spec = oci::parse_spec(config_json);
    const DeviceForms forms = device_forms(spec, visible_devices_reader(spec, next_hook), std::nullopt);
    d.register_hook = may_request_gpus(spec, forms) || (nvidia && shows_anything_nvidia(spec));
    d.names = container_names(spec.annotations, spec.annotations);
  } catch (const std::exception&) {
    d.register_hook = true;
  }
  return d;
}

}  // namespace gnh
