#include <nlohmann/json.hpp>

#include "base/error.h"
#include "install/docker_config.h"
#include "install/engine_config.h"

namespace gnh {

namespace {

// NVIDIA's runtime in daemon.json's runtimes, the default first: {"nvidia": {"path": ...}}.
std::string nvidia_path_of(const nlohmann::ordered_json& runtimes, const std::string& default_name) {
  auto path = [&](const std::string& n, const nlohmann::ordered_json& r) -> std::string {
    if (!r.is_object()) return "";
    std::string p = r.contains("path") && r["path"].is_string() ? r["path"].get<std::string>() : "";
    if (!is_nvidia_runtime(n, p)) return "";
    return p.empty() ? "nvidia-container-runtime" : p;
  };
  if (runtimes.contains(default_name))
    if (std::string p = path(default_name, runtimes[default_name]); !p.empty()) return p;
  for (const auto& [k, v] : runtimes.items())
    if (std::string p = path(k, v); !p.empty()) return p;
  return "";
}

}  // namespace

std::string edit_docker_daemon_json(std::string_view text, const std::string& file, const InstallOptions& o,
                                    EngineRuntimes* seen) {
  nlohmann::ordered_json d = nlohmann::ordered_json::object();
  if (text.find_first_not_of(" \t\r\n") != std::string_view::npos) {
    try {
      d = nlohmann::ordered_json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      // e.what() names the line and column ("parse error at line 3, column 5: ...").
      fail(file + ": cannot parse, left untouched: " + e.what());
    }
  }
  if (!d.is_object()) fail(file + ": not a JSON object, left untouched");
  if (d.contains("runtimes") && !d["runtimes"].is_object()) fail(file + ": \"runtimes\" is not an object, left untouched");
  if (o.uninstall) {
    if (d.contains("runtimes")) {
      auto& rt = d["runtimes"];
      auto it = rt.find(kRuntimeName);
      if (it != rt.end() && it->is_object() && it->value("path", "") == o.runtime_path) rt.erase(kRuntimeName);
      if (rt.empty()) d.erase("runtimes");
    }
    if (d.value("default-runtime", "") == kRuntimeName) {
      if (o.restore_default.empty()) d.erase("default-runtime");
      else d["default-runtime"] = o.restore_default;
    }
  } else {
    if (d.contains("default-runtime") && !d["default-runtime"].is_string())
      fail(file + ": \"default-runtime\" is not a string, left untouched");
    const std::string default_name = d.value("default-runtime", "");
    if (seen) *seen = {default_name, "", d.contains("runtimes") ? nvidia_path_of(d["runtimes"], default_name) : ""};
    auto& ours = d["runtimes"][kRuntimeName];
    if (!ours.is_object()) ours = nlohmann::ordered_json::object();
    ours["path"] = o.runtime_path;
    if (o.set_default) d["default-runtime"] = kRuntimeName;
  }
  if (d.empty()) return "{}\n";
  return d.dump(2) + "\n";
}

namespace {

class DockerConfig final : public EngineConfig {
 public:
  DockerConfig(std::string file, const ConfigReader& reader) : file_(std::move(file)), text_(reader.read(file_)) {}

  EngineRuntimes runtimes() const override {
    EngineRuntimes seen;
    edit_docker_daemon_json(text_.value_or(""), file_, InstallOptions{}, &seen);
    return seen;
  }

  EngineEdit add_runtime(const InstallOptions& o, const std::optional<InstallRecord>& recorded) const override {
    // A record whose install left no trace in the file (it was replaced since) is stale.
    const std::optional<InstallRecord> earlier = has_ours() ? recorded : std::nullopt;
    EngineEdit e;
    InstallOptions io = o;
    io.set_default = o.set_default || (earlier && earlier->set_default);
    e.changes.push_back({file_, text_, edit_docker_daemon_json(text_.value_or(""), file_, io, &e.runtimes)});
    e.record.config = file_;
    e.record.set_default = io.set_default;
    e.record.created_config = earlier ? earlier->created_config : !text_;
    // The default this run displaces: on a re-run, a default another tool set since (nvidia-ctk
    // runtime configure --set-as-default) is the one uninstall must give back, not the earlier one.
    const bool displaces = io.set_default && e.runtimes.default_runtime != kRuntimeName;
    e.record.previous_default = earlier && !displaces ? earlier->previous_default
                                : (e.runtimes.default_runtime == kRuntimeName ? "" : e.runtimes.default_runtime);
    if (earlier) e.record.previous_next = earlier->previous_next;
    return e;
  }

  EngineEdit remove_runtime(const InstallOptions& o, const std::optional<InstallRecord>& record) const override {
    EngineEdit e;
    if (!text_) return e;
    InstallOptions io = o;
    io.restore_default = record ? record->previous_default : "";
    std::string after = edit_docker_daemon_json(*text_, file_, io);
    if (record && record->created_config && after == "{}\n") e.changes.push_back({file_, text_, std::nullopt, true});  // install created it
    else e.changes.push_back({file_, text_, after});
    return e;
  }

  std::string restart_hint() const override { return "restart dockerd to apply: systemctl restart docker"; }

 private:
  bool has_ours() const {
    if (!text_) return false;
    try {
      nlohmann::json d = nlohmann::json::parse(*text_);
      return d.is_object() && d.contains("runtimes") && d["runtimes"].is_object() && d["runtimes"].contains(kRuntimeName);
    } catch (const nlohmann::json::exception&) {
      return false;  // the edit names the file and the line
    }
  }

  std::string file_;
  std::optional<std::string> text_;
};

}  // namespace

std::unique_ptr<EngineConfig> docker_config(const std::string& daemon_json, const ConfigReader& reader) {
  return std::make_unique<DockerConfig>(daemon_json, reader);
}

}  // namespace gnh
