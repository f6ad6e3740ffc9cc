#include "hook_entry.h"

#include "json_fields.h"

namespace oci {

using namespace detail;

namespace {

HookEntry entry_from(const json& j, const std::string& path) {
  if (!j.is_object()) throw ParseError((path.empty() ? "hook" : path) + " must be an object");
  HookEntry h;
  h.path = opt_string(j, "path", path).value_or("");
  if (h.path.empty() || h.path.front() != '/')
    throw ParseError(path + "path must be an absolute path");
  h.args = string_array(j, "args", path);
  h.env = string_array(j, "env", path);
  if (auto t = opt_integer(j, "timeout", path)) {
    if (*t <= 0 || *t > 86400) throw ParseError(path + "timeout must be a positive number of seconds");
    h.timeout = static_cast<int>(*t);
  }
  return h;
}

}  // namespace

HookEntry parse_hook_entry(std::string_view text) {
  return entry_from(parse_json(text, "hook entry"), "");
}

HooksDFile parse_hooks_d_file(std::string_view text) {
  json j = parse_json(text, "hooks.d file");
  if (!j.is_object()) throw ParseError("hooks.d file must be a JSON object");
  HooksDFile f;
  f.version = opt_string(j, "version", "").value_or("");
  if (f.version != "1.0.0") throw ParseError("version must be \"1.0.0\", not \"" + f.version + "\"");
  const json* hook = opt_object(j, "hook", "");
  if (!hook) throw ParseError("hook is missing");
  f.hook = entry_from(*hook, "hook.");
  const json* when = opt_object(j, "when", "");
  if (!when) throw ParseError("when is missing");
  if (const json* a = member(*when, "always")) {
    if (!a->is_boolean()) throw ParseError("when.always must be a boolean");
    f.when_always = a->get<bool>();
  }
  f.when_annotations = string_map(*when, "annotations", "when.");
  f.when_commands = string_array(*when, "commands", "when.");
  if (const json* b = member(*when, "hasBindMounts")) {
    if (!b->is_boolean()) throw ParseError("when.hasBindMounts must be a boolean");
    f.when_has_bind_mounts = b->get<bool>();
  }
  f.stages = string_array(j, "stages", "");
  if (f.stages.empty()) throw ParseError("stages must name at least one stage");
  return f;
}

}  // namespace oci
