#include "systemd/allowed_nodes_probe.h"

#include <cstdio>

namespace gnh {

std::string unit_object_path(std::string_view unit) {
  std::string out = "/org/freedesktop/systemd1/unit/";
  if (unit.empty()) return out + "_";
  char buf[4];
  for (size_t i = 0; i < unit.size(); ++i) {
    char c = unit[i];
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9');
    if (keep) {
      out.push_back(c);
    } else {
      std::snprintf(buf, sizeof buf, "_%02x", static_cast<unsigned char>(c));
      out += buf;
    }
  }
  return out;
}

std::string unit_interface(std::string_view unit) {
  size_t dot = unit.rfind('.');
  std::string_view type = dot == std::string_view::npos ? std::string_view() : unit.substr(dot + 1);
  if (type == "slice") return "org.freedesktop.systemd1.Slice";
  if (type == "service") return "org.freedesktop.systemd1.Service";
  return "org.freedesktop.systemd1.Scope";
}

std::string no_allowed_memory_nodes_text(const std::string& unit) {
  return unit + " not told: its systemd has no AllowedMemoryNodes= (upstream added it in 244) and leaves cpuset.mems " +
         "alone, so the value written stays; nothing to run";
}

}  // namespace gnh
