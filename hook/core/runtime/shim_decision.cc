#include "runtime/shim_decision.h"

#include "gpu/gpu_request.h"
#include "spec.h"

namespace gnh {

namespace {

// Runtimes that run the spec as written. Any other (nvidia-container-runtime in each mode, a
// wrapper we do not know) may add devices after us, so it gets the hook.
bool adds_nothing_to_spec(std::string_view runtime) {
  const size_t slash = runtime.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? runtime : runtime.substr(slash + 1);
  return name == "runc" || name == "crun";
}

}  // namespace

ShimDecision decide_shim_registration(std::string_view config_json, std::string_view next_runtime) {
  ShimDecision d;
  if (!adds_nothing_to_spec(next_runtime)) return d;
  try {
    const oci::Spec spec = oci::parse_spec(config_json);
    d.register_hook = may_request_gpus(spec);
    d.names = container_names(spec.annotations, spec.annotations);
  } catch (const std::exception&) {
    d.register_hook = true;
  }
  return d;
}

}  // namespace gnh
