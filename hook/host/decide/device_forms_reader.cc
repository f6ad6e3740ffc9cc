#include "host/decide/device_forms_reader.h"

#include "base/error.h"
#include "gpu/gpu_request.h"

namespace gnh {

DeviceForms read_device_forms(const HostFs& fs, const oci::Spec& spec, std::string_view next_hook) {
  const VisibleDevicesReader reader = visible_devices_reader(spec, next_hook);
  if (reader.kind != VisibleDevicesReader::Kind::nvidia_hook || reader.config ||
      !may_request_gpus(spec, every_device_form()))
    return device_forms(spec, reader, std::nullopt);
  std::optional<NvidiaHookSettings> settings;
  try {
    std::optional<std::string> text = fs.read(kNvidiaConfigPath);
    settings = text ? nvidia_hook_settings(*text) : NvidiaHookSettings{};
  } catch (const Failure&) {
    // Unreadable: both forms count (the hook errs towards checking the container).
  }
  return device_forms(spec, reader, settings);
}

}  // namespace gnh
