// nvidia-container-runtime's own config.toml in legacy mode (install --runtime nvidia-legacy).
#include "base/error.h"
#include "install/config_edit.h"
#include "install/toml_text.h"

namespace gnh {

std::string edit_nvidia_runtime_config(std::string_view text, const std::string& file, const InstallOptions& o,
                                       std::string* previous_hook, const std::string& restore_hook) {
  toml::table root = parse_toml_file(text, file);
  if (!root.contains("nvidia-container-runtime-hook")) root.insert("nvidia-container-runtime-hook", toml::table{});
  toml::table* hook = root["nvidia-container-runtime-hook"].as_table();
  if (!hook) fail(file + ": nvidia-container-runtime-hook is not a table, left untouched");
  std::string current = (*hook)["path"].value_or(std::string("nvidia-container-runtime-hook"));
  if (previous_hook) *previous_hook = current;
  if (o.uninstall) {
    if (current == o.hook_path) {
      if (restore_hook.empty()) hook->erase("path");
      else hook->insert_or_assign("path", restore_hook);
    }
    if (hook->empty()) root.erase("nvidia-container-runtime-hook");
  } else {
    hook->insert_or_assign("path", o.hook_path);
  }
  return emit_toml(root);
}

}  // namespace gnh
