#include "host/decide/device_forms_reader.h"

#include "base/error.h"
#include "gpu/gpu_request.h"

namespace gnh {

namespace {

// A toolkit wrapper is a few hundred bytes; an ELF hook fails this read, which is the answer.
constexpr size_t kWrapperMaxBytes = 4096;

std::optional<std::string> hook_text(const HostFs& fs, const std::string& path) {
  if (path.empty() || path.front() != '/') return std::nullopt;
  try {
    return fs.read(path, kWrapperMaxBytes);
  } catch (const Failure&) {
    return std::nullopt;  // larger than a wrapper, or not text: a program, not a script
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
