// CDI device names ("vendor/class=name") that can give a container an NVIDIA GPU. Pure.
#pragma once

#include <string_view>

namespace gnh {

// NVIDIA names every GPU and MIG device class `gpu` (nvidia.com/gpu=0, =0:1, =GPU-<uuid>,
// =MIG-<uuid>, =all), or `gpu.<split>` where nvidia-ctk splits its spec by coherence
// (nvidia.com/gpu.coherent=0), under nvidia.com or a subdomain of it: management.nvidia.com (the
// GPU operator's management device, every GPU's device nodes) and k8s.device-plugin.nvidia.com
// (the device plugin's). Its other classes (imex-channel, gdrcopy, gds, mofed, nvswitch) and other
// vendors' devices carry no GPU.
bool is_nvidia_gpu_cdi_name(std::string_view name);

// A comma-separated list of CDI names (the value of NVIDIA's NRI annotation) names at least one.
bool names_nvidia_gpu_cdi_device(std::string_view list);

}  // namespace gnh
