#include <sstream>
#include <toml++/toml.h>

#include "base/error.h"
#include "install/config_edit.h"

namespace gnh {

namespace {

toml::table parse_toml(std::string_view text, const std::string& file) {
  try {
    return toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    fail(file + ": line " + std::to_string(e.source().begin.line) + ", column " +
         std::to_string(e.source().begin.column) + ": cannot parse, left untouched: " + std::string(e.description()));
  }
}

// t[key] as a table, created when absent; Failure when it is something else.
toml::table& sub(toml::table& t, const std::string& key, const std::string& file, const std::string& where) {
  if (!t.contains(key)) t.insert(key, toml::table{});
  toml::table* s = t[key].as_table();
  if (!s) fail(file + ": " + where + " is not a table, left untouched");
  return *s;
}

// Removes t[key] when it is an empty table (one we may have created).
void drop_if_empty(toml::table& t, const std::string& key) {
  if (auto* s = t[key].as_table(); s && s->empty()) t.erase(key);
}

std::string emit(const toml::table& t) {
  std::ostringstream out;
  out << toml::toml_formatter(t, toml::toml_formatter::default_flags & ~toml::format_flags::indentation);
  std::string s = out.str();
  if (!s.empty() && s.back() != '\n') s += '\n';
  return s;
}

}  // namespace

std::string containerd_cri_plugin(long long version) {
  if (version >= 3) return "io.containerd.cri.v1.runtime";
  return version == 2 ? "io.containerd.grpc.v1.cri" : "cri";
}

namespace {

// The runtime ours is copied from: the default unless it is NVIDIA's (ours chains to NVIDIA's
// instead, [runtime] next), else runc, else crun.
std::string base_runtime_of(const toml::table& runtimes, const std::string& default_name) {
  auto usable = [&](const std::string& n) { return !n.empty() && n != kRuntimeName && runtimes[n].is_table(); };
  if (usable(default_name)) {
    const toml::table& d = *runtimes[default_name].as_table();
    if (!is_nvidia_runtime(default_name, d["options"]["BinaryName"].value_or(std::string()))) return default_name;
  }
  for (const char* n : {"runc", "crun"})
    if (usable(n)) return n;
  return "";
}

std::string nvidia_binary_of(const toml::table& runtimes, const std::string& default_name) {
  auto binary = [&](const std::string& n) -> std::string {
    const toml::table* t = runtimes[n].as_table();
    if (!t) return "";
    std::string b = (*t)["options"]["BinaryName"].value_or(std::string());
    if (!is_nvidia_runtime(n, b)) return "";
    return b.empty() ? "nvidia-container-runtime" : b;
  };
  if (std::string b = binary(default_name); !b.empty()) return b;
  for (const auto& [k, v] : runtimes)
    if (std::string b = binary(std::string(k.str())); !b.empty()) return b;
  return "";
}

}  // namespace

std::string edit_containerd_config(std::string_view text, const std::string& file, const InstallOptions& o,
                                   EngineRuntimes* seen) {
  toml::table root = parse_toml(text, file);
  const bool fresh = root.empty();
  if (fresh && !o.uninstall) root.insert("version", 2);
  const long long version = root["version"].value_or(1LL);
  const std::string plugin = containerd_cri_plugin(version);
  const std::string where = "plugins.\"" + plugin + "\"";
  if (o.uninstall) {
    auto* plugins = root["plugins"].as_table();
    auto* cri = plugins ? (*plugins)[plugin].as_table() : nullptr;
    auto* ctd = cri ? (*cri)["containerd"].as_table() : nullptr;
    auto* rts = ctd ? (*ctd)["runtimes"].as_table() : nullptr;
    if (rts) {
      auto* ours = (*rts)[kRuntimeName].as_table();
      if (ours && (*ours)["options"]["BinaryName"].value_or(std::string()) == o.runtime_path) rts->erase(kRuntimeName);
      drop_if_empty(*ctd, "runtimes");
    }
    if (ctd && (*ctd)["default_runtime_name"].value_or(std::string()) == kRuntimeName) {
      if (o.restore_default.empty()) ctd->erase("default_runtime_name");
      else ctd->insert_or_assign("default_runtime_name", o.restore_default);
    }
    if (cri) drop_if_empty(*cri, "containerd");
    if (plugins) drop_if_empty(*plugins, plugin);
    drop_if_empty(root, "plugins");
    return emit(root);
  }
  toml::table& ctd = sub(sub(sub(root, "plugins", file, "plugins"), plugin, file, where), "containerd", file, where + ".containerd");
  toml::table& rts = sub(ctd, "runtimes", file, where + ".containerd.runtimes");
  const std::string default_name = ctd["default_runtime_name"].value_or(std::string());
  const std::string base = base_runtime_of(rts, default_name);
  if (seen) *seen = {default_name, base, nvidia_binary_of(rts, default_name)};
  toml::table ours = base.empty() ? toml::table{} : *rts[base].as_table();
  if (!ours.contains("runtime_type")) ours.insert("runtime_type", "io.containerd.runc.v2");
  toml::table& options = sub(ours, "options", file, where + ".containerd.runtimes." + base + ".options");
  options.insert_or_assign("BinaryName", o.runtime_path);
  rts.insert_or_assign(kRuntimeName, std::move(ours));
  if (o.set_default) ctd.insert_or_assign("default_runtime_name", kRuntimeName);
  return emit(root);
}

long long containerd_config_version(std::string_view text, const std::string& file) {
  toml::table root = parse_toml(text, file);
  return root.empty() ? 2 : root["version"].value_or(1LL);
}

std::vector<std::string> containerd_imports(std::string_view text, const std::string& file) {
  toml::table root = parse_toml(text, file);
  std::vector<std::string> out;
  if (const toml::array* a = root["imports"].as_array())
    for (const auto& e : *a)
      if (auto v = e.value<std::string>()) out.push_back(*v);
  return out;
}

std::string containerd_nvidia_binary(std::string_view text, const std::string& file) {
  toml::table root = parse_toml(text, file);
  for (long long v : {1LL, 2LL, 3LL}) {
    const toml::table* ctd = root["plugins"][containerd_cri_plugin(v)]["containerd"].as_table();
    const toml::table* rts = ctd ? (*ctd)["runtimes"].as_table() : nullptr;
    if (!rts) continue;
    if (std::string b = nvidia_binary_of(*rts, (*ctd)["default_runtime_name"].value_or(std::string())); !b.empty()) return b;
  }
  return "";
}

bool containerd_defines_cri(std::string_view text, const std::string& file) {
  toml::table root = parse_toml(text, file);
  const toml::table* plugins = root["plugins"].as_table();
  if (!plugins) return false;
  for (long long v : {1LL, 2LL, 3LL})
    if ((*plugins)[containerd_cri_plugin(v)].is_table()) return true;
  return false;
}

std::string edit_nvidia_runtime_config(std::string_view text, const std::string& file, const InstallOptions& o,
                                       std::string* previous_hook, const std::string& restore_hook) {
  toml::table root = parse_toml(text, file);
  toml::table& hook = sub(root, "nvidia-container-runtime-hook", file, "nvidia-container-runtime-hook");
  std::string current = hook["path"].value_or(std::string("nvidia-container-runtime-hook"));
  if (previous_hook) *previous_hook = current;
  if (o.uninstall) {
    if (current == o.hook_path) {
      if (restore_hook.empty()) hook.erase("path");
      else hook.insert_or_assign("path", restore_hook);
    }
    drop_if_empty(root, "nvidia-container-runtime-hook");
  } else {
    hook.insert_or_assign("path", o.hook_path);
  }
  return emit(root);
}

}  // namespace gnh
