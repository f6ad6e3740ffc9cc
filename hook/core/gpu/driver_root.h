// Where the NVIDIA driver's user-space files are (libnvidia-ml.so.1, nvidia-smi): "/" on a host
// with the driver installed; under NVIDIA's GPU operator, the driver container's root,
// /run/nvidia/driver on the host, and the host's own /usr/lib has no NVIDIA library. NVIDIA's parts
// find it in their config.toml's [nvidia-container-cli] root. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gnh {

// [nvidia-container-cli] root of NVIDIA's config.toml: an absolute path without "..", its trailing
// '/' dropped ("/" stays). nullopt when the key is absent, not such a path, or the text not TOML.
std::optional<std::string> nvidia_driver_root(std::string_view config_toml);

// The settings file of the GPU operator's toolkit container, installed where the operator installs
// it by default (--toolkit-install-dir /usr/local/nvidia).
constexpr const char* kOperatorNvidiaConfigPath = "/usr/local/nvidia/toolkit/.config/nvidia-container-runtime/config.toml";

}  // namespace gnh
