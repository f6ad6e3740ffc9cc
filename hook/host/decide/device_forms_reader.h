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
// the variable pays nothing. The file is read at /etc/nvidia-container-runtime/config.toml alone:
// a hook given -config elsewhere (a path config.json names) is not followed, and both forms then
// count, as they do when the file does not parse. An absent file is NVIDIA's defaults, as for
// NVIDIA's hook. `next_hook`: our [chain] next-hook.
DeviceForms read_device_forms(const HostFs& fs, const oci::Spec& spec, std::string_view next_hook);

}  // namespace gnh
