#include "runtime/prestart_registration.h"

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "runtime/json_object.h"

namespace gnh {

namespace {

std::string basename_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool is_ours(const nlohmann::ordered_json& entry, const std::string& our_path) {
  if (!entry.is_object()) return false;
  auto p = entry.find("path");
  if (p == entry.end() || !p->is_string()) return false;
  const std::string path = p->get<std::string>();
  return path == our_path || basename_of(path) == "gpu-numa-hook";
}

}  // namespace

oci::HookEntry shim_hook_entry(const std::string& hook_path) {
  oci::HookEntry e;
  e.path = hook_path;
  e.args = {"gpu-numa-hook", "prestart"};
  e.env = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin"};
  e.timeout = 60;
  return e;
}

Registration add_prestart_hook(std::string_view config_json, const oci::HookEntry& ours) {
  auto spec = parse_json_object<nlohmann::ordered_json>(config_json, "config.json");
  auto& hooks = spec["hooks"];
  if (hooks.is_null()) hooks = nlohmann::ordered_json::object();
  if (!hooks.is_object()) fail("config.json: hooks is not an object");
  auto& prestart = hooks["prestart"];
  if (prestart.is_null()) prestart = nlohmann::ordered_json::array();
  if (!prestart.is_array()) fail("config.json: hooks.prestart is not an array");
  for (const auto& entry : prestart)
    if (is_ours(entry, ours.path)) return {false, std::string(config_json)};

  nlohmann::ordered_json entry = {{"path", ours.path}, {"args", ours.args}};
  if (!ours.env.empty()) entry["env"] = ours.env;
  if (ours.timeout) entry["timeout"] = *ours.timeout;
  prestart.push_back(std::move(entry));
  // Compact, as runtimes and engines write it; the runtime reads it once.
  return {true, spec.dump()};
}

}  // namespace gnh
