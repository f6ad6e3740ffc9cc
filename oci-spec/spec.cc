#include "spec.h"

#include "json_fields.h"

namespace oci {

using namespace detail;

std::optional<std::string> Spec::env_value(std::string_view key) const {
  std::optional<std::string> found;
  for (const auto& e : env) {
    if (e.size() > key.size() && e.compare(0, key.size(), key) == 0 && e[key.size()] == '=')
      found = e.substr(key.size() + 1);
  }
  return found;
}

Spec parse_spec(std::string_view text) {
  json j = parse_json(text, "config.json");
  if (!j.is_object()) throw ParseError("config.json must be a JSON object, not " + type_name(j));
  Spec s;
  if (const json* process = opt_object(j, "process", "")) s.env = string_array(*process, "env", "process.");
  if (const json* mounts = opt_array(j, "mounts", "")) {
    for (size_t i = 0; i < mounts->size(); ++i) {
      const json& m = (*mounts)[i];
      std::string p = "mounts[" + std::to_string(i) + "].";
      if (!m.is_object()) throw ParseError(p.substr(0, p.size() - 1) + " must be an object");
      s.mounts.push_back({opt_string(m, "destination", p).value_or(""), opt_string(m, "source", p).value_or("")});
    }
  }
  s.annotations = string_map(j, "annotations", "");
  if (const json* linux = opt_object(j, "linux", "")) {
    s.cgroups_path = opt_string(*linux, "cgroupsPath", "linux.").value_or("");
    if (const json* devices = opt_array(*linux, "devices", "linux.")) {
      for (size_t i = 0; i < devices->size(); ++i) {
        const json& d = (*devices)[i];
        std::string p = "linux.devices[" + std::to_string(i) + "].";
        if (!d.is_object()) throw ParseError(p.substr(0, p.size() - 1) + " must be an object");
        LinuxDevice dev;
        dev.path = opt_string(d, "path", p).value_or("");
        dev.type = opt_string(d, "type", p).value_or("");
        dev.major = opt_integer(d, "major", p).value_or(-1);
        dev.minor = opt_integer(d, "minor", p).value_or(-1);
        s.devices.push_back(std::move(dev));
      }
    }
    if (const json* res = opt_object(*linux, "resources", "linux."))
      if (const json* cpu = opt_object(*res, "cpu", "linux.resources."))
        if (auto mems = opt_string(*cpu, "mems", "linux.resources.cpu."); mems && !mems->empty())
          s.cpuset_mems = *mems;
  }
  return s;
}

}  // namespace oci
