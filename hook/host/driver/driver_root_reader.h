// Where the driver's user-space files are on this host (gpu/driver_root.h), from files the
// administrator controls, never from a container: our [nvml] driver-root when set; else NVIDIA's
// [nvidia-container-cli] root, from the host package's config.toml, then the GPU operator's toolkit
// container's; else "/".
#pragma once

#include <string>
#include <string_view>

#include "host/fs/host_fs.h"

namespace gnh {

struct DriverRoot {
  std::string path = "/";  // a host path; "/" is the host's own
  std::string source;      // where it came from, for what the tools print
};

// Never a Failure: an NVIDIA config.toml that cannot be read or names no root is passed over.
DriverRoot find_driver_root(const HostFs& fs, std::string_view configured);

}  // namespace gnh
