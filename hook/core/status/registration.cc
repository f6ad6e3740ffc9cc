#include "status/registration.h"
#include "base/toml_guard.h"

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "base/error.h"
#include "install/config_edit.h"

namespace gnh {

namespace {

constexpr const char* kOurRuntime = "gpu-numa";

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

toml::table parse_toml(std::string_view text, const std::string& file) {
  try {
    return parse_toml_text(text, file);
  } catch (const toml::parse_error& e) {
    fail(file + ": cannot parse: " + std::string(e.description()) + " (line " +
         std::to_string(e.source().begin.line) + ")");
  }
}

nlohmann::json parse_json(std::string_view text, const std::string& file) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    fail(file + ": cannot parse: " + e.what());
  }
}

// Walks every table: our runtime under any `runtimes` table, and a default naming it.
void walk(const toml::table& t, std::optional<RegistrationEntry>* found, bool* is_default, std::string* default_name) {
  for (const auto& [key, node] : t) {
    if (key.str() == "default_runtime_name" || key.str() == "default_runtime") {
      const std::string name = node.value_or(std::string());
      if (name == kOurRuntime) *is_default = true;
      else if (!name.empty() && default_name->empty()) *default_name = name;
    }
    const toml::table* sub = node.as_table();
    if (!sub) continue;
    if (key.str() == "runtimes") {
      if (const toml::table* ours = (*sub)[kOurRuntime].as_table()) {
        RegistrationEntry e;
        e.binary = (*ours)["options"]["BinaryName"].value_or((*ours)["runtime_path"].value_or(std::string()));
        *found = e;
      }
    }
    walk(*sub, found, is_default, default_name);
  }
}

}  // namespace

std::optional<RegistrationEntry> docker_registration(std::string_view text, const std::string& file) {
  nlohmann::json j = parse_json(text, file);
  if (!j.is_object()) fail(file + ": cannot parse: not a JSON object");
  auto rt = j.find("runtimes");
  if (rt == j.end() || !rt->is_object() || !rt->contains(kOurRuntime)) return std::nullopt;
  RegistrationEntry e;
  const auto& ours = (*rt)[kOurRuntime];
  if (ours.is_object() && ours.contains("path") && ours["path"].is_string()) e.binary = ours["path"].get<std::string>();
  auto d = j.find("default-runtime");
  if (d != j.end() && d->is_string()) e.default_name = d->get<std::string>();
  e.is_default = e.default_name == kOurRuntime;
  return e;
}

std::optional<RegistrationEntry> toml_runtime_registration(std::string_view text, const std::string& file) {
  toml::table t = parse_toml(text, file);
  std::optional<RegistrationEntry> found;
  bool is_default = false;
  std::string default_name;
  walk(t, &found, &is_default, &default_name);
  if (found) {
    found->is_default = is_default;
    if (!is_default) found->default_name = default_name;
  }
  return found;
}

namespace {

// Every `runtimes` table's NVIDIA runtime, `nvidia` itself preferred.
void walk_nvidia(const toml::table& t, std::string* named_nvidia, std::string* other) {
  for (const auto& [key, node] : t) {
    const toml::table* sub = node.as_table();
    if (!sub) continue;
    if (key.str() == "runtimes") {
      for (const auto& [name, rt] : *sub) {
        const toml::table* r = rt.as_table();
        if (!r) continue;
        const std::string binary = (*r)["options"]["BinaryName"].value_or((*r)["runtime_path"].value_or(std::string()));
        if (binary.empty() || !is_nvidia_runtime(name.str(), binary)) continue;
        if (name.str() == "nvidia" && named_nvidia->empty()) *named_nvidia = binary;
        else if (other->empty()) *other = binary;
      }
    }
    walk_nvidia(*sub, named_nvidia, other);
  }
}

}  // namespace

std::string nvidia_runtime_binary(std::string_view text, const std::string& file) {
  toml::table t = parse_toml(text, file);
  std::string named_nvidia, other;
  walk_nvidia(t, &named_nvidia, &other);
  return named_nvidia.empty() ? other : named_nvidia;
}

LaterContainerdFile later_containerd_file(std::string_view text, const std::string& file) {
  toml::table t = parse_toml(text, file);
  LaterContainerdFile out;
  // version 1 and 2 files name the CRI plugin io.containerd.grpc.v1.cri; version 3 (containerd 2.x)
  // io.containerd.cri.v1.runtime
  for (const char* key : {"io.containerd.grpc.v1.cri", "io.containerd.cri.v1.runtime"}) {
    const toml::node_view cri = t["plugins"][key];
    if (!cri.is_table()) continue;
    out.defines_cri_table = true;
    if (auto name = cri["containerd"]["default_runtime_name"].value<std::string>()) out.default_name = *name;
  }
  return out;
}

std::optional<RegistrationEntry> hooks_d_registration(std::string_view text, const std::string& file) {
  nlohmann::json j = parse_json(text, file);
  if (!j.is_object() || !j.contains("hook") || !j["hook"].is_object()) return std::nullopt;
  const auto& h = j["hook"];
  std::string path = h.value("path", std::string());
  bool ours = ends_with(path, "gpu-numa-hook");
  if (h.contains("args") && h["args"].is_array() && !h["args"].empty() && h["args"][0].is_string())
    ours = ours || h["args"][0].get<std::string>() == "gpu-numa-hook";
  if (!ours) return std::nullopt;
  return RegistrationEntry{path, false, ""};
}

std::optional<RegistrationEntry> nvidia_legacy_registration(std::string_view text, const std::string& file) {
  toml::table t = parse_toml(text, file);
  std::string path = t["nvidia-container-runtime-hook"]["path"].value_or(std::string());
  if (!ends_with(path, "gpu-numa-hook")) return std::nullopt;
  return RegistrationEntry{path, false, ""};
}

}  // namespace gnh
