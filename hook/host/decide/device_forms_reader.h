// The GPU forms that count for one container (gpu/device_forms.h), with NVIDIA's hook's settings
// read from the host where its hook is the reader.
#pragma once

#include <string_view>

#include "gpu/device_forms.h"
#include "host/fs/host_fs.h"
#include "spec.h"

namespace gnh {

// NVIDIA's config.toml is read only when NVIDIA's hook reads the variable and the container names a
// GPU by it: in legacy mode NVIDIA's hook is in every container's spec, and a container without
// the variable pays nothing. The file is the one NVIDIA's hook reads: its -config argument, else
// the one its wrapper script hands it (the GPU operator's toolkit container: the spec names
// <dir>/toolkit/nvidia-container-runtime-hook, a /bin/sh wrapper setting
// NVIDIA_CTK_CONFIG_FILE_PATH), else /etc/nvidia-container-runtime/config.toml. An absent /etc file
// is NVIDIA's defaults, as for NVIDIA's hook; a named file absent, unreadable or not parsing leaves
// the settings unknown, and both forms count. These paths come from the spec's hooks and the host's
// files, which the runtime and the administrator write, never from the container. `next_hook`: our
// [chain] next-hook.
DeviceForms read_device_forms(const HostFs& fs, const oci::Spec& spec, std::string_view next_hook);

}  // namespace gnh
