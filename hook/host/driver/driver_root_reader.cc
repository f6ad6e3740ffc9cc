#include "host/driver/driver_root_reader.h"

#include "base/error.h"
#include "gpu/device_forms.h"
#include "gpu/driver_root.h"

namespace gnh {

DriverRoot find_driver_root(const HostFs& fs, std::string_view configured) {
  if (!configured.empty()) return {std::string(configured), "[nvml] driver-root"};
  for (const char* file : {kNvidiaConfigPath, kOperatorNvidiaConfigPath}) {
    try {
      if (std::optional<std::string> text = fs.read(file))
        if (std::optional<std::string> root = nvidia_driver_root(*text))
          return {*root, std::string("[nvidia-container-cli] root in ") + file};
    } catch (const Failure&) {
      // unreadable: the next place, and in the end the host's own root
    }
  }
  return {"/", ""};
}

}  // namespace gnh
