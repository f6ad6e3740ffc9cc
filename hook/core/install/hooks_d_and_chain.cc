#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "base/error.h"
#include "base/text.h"
#include "install/config_edit.h"
#include "install/toml_text.h"

namespace gnh {

std::string hooks_d_file_text(const InstallOptions& o) {
  if (o.uninstall) return "";
  // The shipped config/registration/hooks.d/gpu-numa-hook.json, with the hook's path.
  nlohmann::ordered_json j = {
      {"version", "1.0.0"},
      {"hook", {{"path", o.hook_path}, {"args", {"gpu-numa-hook", "prestart"}},
                {"env", {"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}}, {"timeout", 60}}},
      {"when", {{"always", true}}},
      {"stages", {"prestart"}}};
  return j.dump(2) + "\n";
}

bool is_our_hooks_d_file(std::string_view text) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return false;
  auto hook = j.find("hook");
  if (hook == j.end() || !hook->is_object() || !hook->contains("path") || !(*hook)["path"].is_string()) return false;
  InstallOptions o;
  o.hook_path = (*hook)["path"].get<std::string>();
  return hooks_d_file_text(o) == text;
}

std::string set_chain_next_hook(std::string_view text, const std::string& next_hook) {
  return set_toml_key_line(text, "chain", "next-hook", "next-hook = " + toml_quoted(next_hook));
}

bool is_nvidia_runtime(std::string_view name, std::string_view binary) {
  return name.rfind("nvidia", 0) == 0 || base_name(binary).rfind("nvidia-container-runtime", 0) == 0;
}

std::string set_runtime_next(std::string_view text, const std::vector<std::string>& next) {
  std::string line = "next = [";
  for (size_t i = 0; i < next.size(); ++i) line += (i ? ", " : "") + toml_quoted(next[i]);
  return set_toml_key_line(text, "runtime", "next", line + "]");
}

std::vector<std::string> runtime_next(std::string_view text, const std::string& file) {
  std::vector<std::string> out;
  toml::table t = parse_toml_file(text, file);
  if (const toml::array* a = t["runtime"]["next"].as_array())
    for (const auto& e : *a)
      if (auto v = e.value<std::string>()) out.push_back(*v);
  return out;
}

std::string set_runtime_hook(std::string_view text, const std::string& hook) {
  return set_toml_key_line(text, "runtime", "hook", hook.empty() ? "" : "hook = " + toml_quoted(hook));
}

std::optional<std::string> runtime_hook(std::string_view text, const std::string& file) {
  return parse_toml_file(text, file)["runtime"]["hook"].value<std::string>();
}

std::string chain_next_hook(std::string_view text, const std::string& file) {
  return parse_toml_file(text, file)["chain"]["next-hook"].value_or(std::string());
}

}  // namespace gnh
