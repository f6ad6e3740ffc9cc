// Whether the runtime shim registers the hook for one `create`. Pure: config.json text and the
// next runtime's path in, the answer out.
#pragma once

#include <string_view>

#include "report/container_names.h"

namespace gnh {

struct ShimDecision {
  bool register_hook = true;
  ContainerNames names;  // from config.json's annotations, for the log line of a skip
};

// register_hook is false only for a container that cannot get a GPU (may_request_gpus on its
// config.json, with the forms that count as the hook sees them before reading NVIDIA's settings:
// the hook's own fast-path test) when the next runtime is runc or crun, which add nothing to a
// spec: the hook would read config.json and exit, and the start pays for its exec. `next_hook`:
// our [chain] next-hook, which reads NVIDIA_VISIBLE_DEVICES when it is NVIDIA's hook.
// Before NVIDIA's runtime (nvidia-container-runtime*), which adds GPUs after us from what
// config.json says, it is false only when config.json also shows nothing NVIDIA's runtime reads:
// no NVIDIA_* or CUDA_VERSION variable, no annotation naming an nvidia.com/ CDI device (whatever
// prefixes its config.toml accepts), no device volume mount. True before any other runtime (a
// wrapper we do not know may add GPUs its own way) and for a config.json that does not parse (the
// hook then refuses it with its own line).
ShimDecision decide_shim_registration(std::string_view config_json, std::string_view next_runtime,
                                      std::string_view next_hook);

}  // namespace gnh
