#include "runtime/prestart_registration.h"

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/text.h"
#include "json_scan.h"
#include "member_check.h"
#include "runtime/json_object.h"

namespace gnh {

namespace {

bool is_ours(const nlohmann::ordered_json& entry, const std::string& our_path) {
  if (!entry.is_object()) return false;
  auto p = entry.find("path");
  if (p == entry.end() || !p->is_string()) return false;
  const std::string path = p->get<std::string>();
  return path == our_path || base_name(path) == "gpu-numa-hook";
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

namespace {

// Appends `ours` to hooks.prestart unless it is there; false when it was. `hooks` may be null
// (absent). The refusals name the field, whichever way the document was read.
bool add_to_hooks(nlohmann::ordered_json& hooks, const oci::HookEntry& ours) {
  if (hooks.is_null()) hooks = nlohmann::ordered_json::object();
  if (!hooks.is_object()) fail("config.json: hooks is not an object");
  auto& prestart = hooks["prestart"];
  if (prestart.is_null()) prestart = nlohmann::ordered_json::array();
  if (!prestart.is_array()) fail("config.json: hooks.prestart is not an array");
  for (const auto& entry : prestart)
    if (is_ours(entry, ours.path)) return false;
  // Ours at createRuntime runs at the same point (runtime namespace, cgroup made, before the
  // container starts): CRI-O 1.37 puts a hooks.d `prestart` hook there, and gpu-numa-nri injects
  // it there. Adding it at prestart too would run the check twice for every container.
  if (auto cr = hooks.find("createRuntime"); cr != hooks.end() && cr->is_array())
    for (const auto& entry : *cr)
      if (is_ours(entry, ours.path)) return false;
  nlohmann::ordered_json entry = {{"path", ours.path}, {"args", ours.args}};
  if (!ours.env.empty()) entry["env"] = ours.env;
  if (ours.timeout) entry["timeout"] = *ours.timeout;
  prestart.push_back(std::move(entry));
  return true;
}

// What the runtimes must read as we do. hooks: we parse it and write it back, and nlohmann keeps
// only the last of two equal keys where crun reads the first (an engine's hook, or ours, would be
// lost), so every key in it is unique; "Hooks" or "Prestart" runc reads as ours and crun ignores.
const oci::Shape& hooks_shape() {
  static const oci::Shape hooks{{{"prestart"}, {"createRuntime"}}, true};
  return hooks;
}
const oci::Shape& root_shape() {
  static const oci::Shape root{{{"hooks", &hooks_shape()}}};
  return root;
}
// The whole document is written back: every key in it unique.
const oci::Shape& whole_shape() {
  static const oci::Shape root{{{"hooks", &hooks_shape()}}, true};
  return root;
}

void refuse_misread(std::string_view text, const oci::Shape& shape, std::string_view at) {
  if (auto why = oci::misread_member(text, shape, "config.json", at))
    throw oci::MisreadSpec(*why + " (config.json left unchanged)");
}

// The whole document, parsed and written back (compact, as runtimes write it): for what the
// scanner declines, so that errors read as nlohmann words them.
Registration add_by_whole_document(std::string_view config_json, const oci::HookEntry& ours) {
  auto spec = parse_json_object<nlohmann::ordered_json>(config_json, "config.json");
  refuse_misread(config_json, whole_shape(), "");
  if (!add_to_hooks(spec["hooks"], ours)) return {false, std::string(config_json)};
  return {true, spec.dump()};
}

}  // namespace

Registration add_prestart_hook(std::string_view config_json, const oci::HookEntry& ours) {
  // Only `hooks` is parsed and rewritten; every other byte is the engine's, untouched. A Docker
  // config.json is ~9 KB, its hooks object a few hundred bytes (docs/internals/benchmarks.md).
  std::optional<oci::LocatedMembers> found = oci::locate_members(config_json, {{"hooks"}});
  if (!found) return add_by_whole_document(config_json, ours);
  if (found->ambiguous) refuse_misread(config_json, root_shape(), "");  // "hooks" twice, or "Hooks"
  const std::optional<std::string_view>& at = found->values[0];
  if (at && at->front() == '{') refuse_misread(*at, hooks_shape(), "hooks");
  nlohmann::ordered_json hooks = at ? nlohmann::ordered_json::parse(at->begin(), at->end()) : nlohmann::ordered_json();
  if (!add_to_hooks(hooks, ours)) return {false, std::string(config_json)};
  const std::string text = hooks.dump();
  std::string out;
  out.reserve(config_json.size() + text.size() + 16);
  if (at) {
    // the one "hooks": two, or another spelling, were refused above (runc would merge them, crun
    // read only the first)
    const size_t begin = static_cast<size_t>(at->data() - config_json.data());
    out.append(config_json.substr(0, begin)).append(text).append(config_json.substr(begin + at->size()));
  } else {
    out.append(config_json.substr(0, found->root_close))
        .append(found->root_empty ? "\"hooks\":" : ",\"hooks\":")
        .append(text)
        .append(config_json.substr(found->root_close));
  }
  return {true, std::move(out)};
}

}  // namespace gnh
