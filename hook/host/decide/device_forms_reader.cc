#include "host/decide/device_forms_reader.h"

#include "base/error.h"
#include "gpu/gpu_request.h"

namespace gnh {

namespace {

// A toolkit wrapper is a few hundred bytes; its first ones tell it from the ELF program a host
// package installs, read no further (reading a program until a size limit failed cost a legacy
// start 6% more instructions).
constexpr size_t kWrapperMaxBytes = 1024;

std::optional<std::string> hook_text(const HostFs& fs, const std::string& path) {
  if (path.empty() || path.front() != '/') return std::nullopt;
  try {
    return fs.read_head(path, kWrapperMaxBytes);
  } catch (const Failure&) {
    return std::nullopt;  // unreadable: NVIDIA's default path, as for a program
  }
}

}  // namespace

DeviceForms read_device_forms(const HostFs& fs, const oci::Spec& spec, std::string_view next_hook) {
  const VisibleDevicesReader reader = visible_devices_reader(spec, next_hook);
  if (reader.kind != VisibleDevicesReader::Kind::nvidia_hook || !may_request_gpus(spec, every_device_form()))
    return device_forms(spec, reader, std::nullopt);
  const std::optional<std::string> text = reader.config ? std::nullopt : hook_text(fs, reader.path);
  const NvidiaConfigLocation where = nvidia_config_location(reader, text);
  std::optional<NvidiaHookSettings> settings;
  if (!where.path.empty() && where.path.front() == '/') {
    try {
      if (std::optional<std::string> toml = fs.read(where.path)) {
        settings = nvidia_hook_settings(*toml);
        if (settings) settings->source = where.path;
      } else if (!where.named) {
        settings = NvidiaHookSettings{};
        settings->source = where.path + " (absent: NVIDIA's defaults)";
      }
      // A named file that is absent (the toolkit container re-creating its folder): unknown.
    } catch (const Failure&) {
      // Unreadable: both forms count (the hook errs towards checking the container).
    }
  }
  return device_forms(spec, reader, settings);
}

}  // namespace gnh
