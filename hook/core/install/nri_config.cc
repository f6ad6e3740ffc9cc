#include "install/nri_config.h"

#include "install/containerd_load_order.h"
#include "install/toml_text.h"

namespace gnh {

bool containerd_nri_enabled(std::string_view main_text, const std::string& file, int major) {
  toml::table t = parse_toml_file(main_text, file);
  auto disable = t["plugins"][kContainerdNriPlugin]["disable"].value<bool>();
  if (disable) return !*disable;
  return major >= 2;
}

std::string containerd_nri_dropin(std::string_view main_text, const std::string& file) {
  toml::table main = parse_toml_file(main_text, file);
  toml::table nri;
  if (const toml::table* have = main["plugins"][kContainerdNriPlugin].as_table()) nri = *have;
  nri.insert_or_assign("disable", false);
  toml::table plugins;
  plugins.insert_or_assign(kContainerdNriPlugin, std::move(nri));
  toml::table out;
  out.insert_or_assign("version", main["version"].value_or(2LL));
  out.insert_or_assign("plugins", std::move(plugins));
  return "# gpu-numa-hook install --runtime nri: NRI on for the gpu-numa-nri plugin\n" + emit_toml(out);
}

void read_containerd_nri_validator(std::string_view text, const std::string& file, NriValidatorSettings* v) {
  toml::table t = parse_toml_file(text, file);
  const toml::table* dv = t["plugins"][kContainerdNriPlugin]["default_validator"].as_table();
  if (!dv) return;
  bool set = false;
  if (auto e = (*dv)["enable"].value<bool>()) v->enable = *e, set = true;
  if (auto r = (*dv)["reject_oci_hook_adjustment"].value<bool>()) v->reject_oci_hook_adjustment = *r, set = true;
  if (const toml::array* req = (*dv)["required_plugins"].as_array()) {
    v->required_plugins.clear();
    for (const auto& n : *req)
      if (auto name = n.value<std::string>()) v->required_plugins.push_back(*name);
    set = true;
  }
  if (set) v->file = file;
}

std::string crio_nri_dropin() {
  return "# gpu-numa-hook install --runtime crio-nri: NRI on for the gpu-numa-nri plugin\n"
         "[crio.nri]\nenable_nri = true\n";
}

namespace {
// A word for sh: single-quoted, each ' as '\''.
std::string sh_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}
}  // namespace

std::string nri_preregistered_script(const std::string& plugin_path, const std::string& hook_path,
                                     const std::string& socket) {
  return "#!/bin/sh\n"
         "# gpu-numa-hook install --runtime nri --nri-pre-registered: the runtime starts this at its own start,\n"
         "# with the NRI connection on the fd in NRI_PLUGIN_SOCKET.\n"
         "exec " + sh_quoted(plugin_path) + " --hook " + sh_quoted(hook_path) +
         (socket.empty() ? "" : " --socket " + sh_quoted(socket)) + "\n";
}

std::string containerd_nri_socket(const std::string& main, const ConfigReader& files, const std::string& root) {
  std::string socket;
  for (const std::string& file : containerd_load_order(main, files, root).files)
    if (std::optional<std::string> text = files.read(file))
      if (auto s = parse_toml_file(*text, file)["plugins"][kContainerdNriPlugin]["socket_path"].value<std::string>())
        socket = *s;
  return socket;
}

}  // namespace gnh
