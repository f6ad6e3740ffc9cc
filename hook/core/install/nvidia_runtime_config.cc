// nvidia-container-runtime's own config.toml in legacy mode (install --runtime nvidia-legacy),
// edited in place as nvidia-ctk does: its comments and commented defaults stay, only the one line
// changes.
#include <optional>

#include "base/error.h"
#include "install/config_edit.h"
#include "install/toml_text.h"

namespace gnh {

namespace {
constexpr const char* kHookTable = "nvidia-container-runtime-hook";
}

std::string edit_nvidia_runtime_config(std::string_view text, const std::string& file, const InstallOptions& o,
                                       std::string* previous_hook, const std::string& restore_hook) {
  toml::table root = parse_toml_file(text, file);
  if (root.contains(kHookTable) && !root[kHookTable].is_table())
    fail(file + ": nvidia-container-runtime-hook is not a table, left untouched");
  std::string current = root[kHookTable]["path"].value_or(std::string("nvidia-container-runtime-hook"));
  if (previous_hook) *previous_hook = current;
  std::string want;  // the path the file must name after the edit; "" = the key absent
  std::string out;
  if (o.uninstall) {
    if (current != o.hook_path) return std::string(text);
    want = restore_hook;
    out = set_toml_key_line(text, kHookTable, "path", want.empty() ? "" : "path = " + toml_quoted(want));
  } else {
    if (root[kHookTable]["path"].value<std::string>() == o.hook_path) return std::string(text);
    want = o.hook_path;
    out = set_toml_key_line(text, kHookTable, "path", "path = " + toml_quoted(want));
  }
  // A layout the line edit cannot see (a dotted or quoted key, an inline table) is refused, not
  // guessed: the result must say exactly what was meant.
  std::optional<std::string> now;
  bool parsed = true;
  try {
    now = parse_toml_file(out, file)[kHookTable]["path"].value<std::string>();
  } catch (const Error&) {
    parsed = false;
  }
  if (!parsed || (want.empty() ? now.has_value() : now != want))
    fail(file + ": [nvidia-container-runtime-hook] path is not a plain `path = \"...\"` line install can edit in place, "
                "left untouched; set it with `nvidia-ctk config --in-place --set nvidia-container-runtime-hook.path=" +
         (want.empty() ? std::string("nvidia-container-runtime-hook") : want) + "`");
  return out;
}

}  // namespace gnh
