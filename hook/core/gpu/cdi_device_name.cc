#include "gpu/cdi_device_name.h"

#include "base/text.h"

namespace gnh {

namespace {
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
}  // namespace

bool is_nvidia_gpu_cdi_name(std::string_view name) {
  name = trim(name);
  const size_t eq = name.find('=');
  if (eq == std::string_view::npos || eq + 1 == name.size()) return false;  // a kind alone names no device
  const std::string_view kind = name.substr(0, eq);
  const size_t slash = kind.find('/');
  if (slash == std::string_view::npos) return false;
  const std::string_view vendor = kind.substr(0, slash), cls = kind.substr(slash + 1);
  const bool nvidia = vendor == "nvidia.com" || ends_with(vendor, ".nvidia.com");
  return nvidia && (cls == "gpu" || cls.rfind("gpu.", 0) == 0);
}

bool names_nvidia_gpu_cdi_device(std::string_view list) {
  while (true) {
    const size_t comma = list.find(',');
    if (is_nvidia_gpu_cdi_name(list.substr(0, comma))) return true;
    if (comma == std::string_view::npos) return false;
    list.remove_prefix(comma + 1);
  }
}

}  // namespace gnh
