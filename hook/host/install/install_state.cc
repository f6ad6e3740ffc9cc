#include "host/install/install_state.h"

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "host/fs/host_fs.h"

namespace gnh {

namespace {

nlohmann::ordered_json to_json(const InstallRecord& r) {
  nlohmann::ordered_json j = {{"config", r.config}, {"previous_default", r.previous_default}, {"set_default", r.set_default}};
  if (!r.dropin.empty()) j["dropin"] = r.dropin;
  if (!r.import_added.empty()) {
    j["import_added"] = r.import_added;
    j["import_line_added"] = r.import_line_added;
  }
  if (r.created_config) j["created_config"] = true;
  if (r.previous_next) j["previous_next"] = *r.previous_next;
  if (r.previous_hook) j["previous_hook"] = *r.previous_hook;
  if (!r.plugin_dir.empty()) j["plugin_dir"] = r.plugin_dir;
  if (!r.made_dirs.empty()) j["made_dirs"] = r.made_dirs;
  if (!r.wrote.empty()) j["wrote"] = r.wrote;
  return j;
}

InstallRecord from_json(const nlohmann::json& j) {
  InstallRecord r;
  r.config = j.value("config", "");
  r.previous_default = j.value("previous_default", "");
  r.set_default = j.value("set_default", false);
  r.dropin = j.value("dropin", "");
  r.import_added = j.value("import_added", "");
  r.import_line_added = j.value("import_line_added", false);
  r.created_config = j.value("created_config", false);
  r.plugin_dir = j.value("plugin_dir", "");
  if (j.contains("made_dirs")) r.made_dirs = j["made_dirs"].get<std::vector<std::string>>();
  if (j.contains("wrote")) r.wrote = j["wrote"].get<std::map<std::string, std::string>>();
  if (j.contains("previous_next")) r.previous_next = j["previous_next"].get<std::vector<std::string>>();
  if (j.contains("previous_hook") && j["previous_hook"].is_string()) r.previous_hook = j["previous_hook"].get<std::string>();
  return r;
}

}  // namespace

InstallState::InstallState(const std::string& our_config)
    : path_(our_config.substr(0, our_config.rfind('/') == std::string::npos ? 0 : our_config.rfind('/') + 1) +
            "install-state.json") {
  before_ = HostFs("/").read(path_, 1024 * 1024);
  if (!before_) return;
  try {
    nlohmann::json j = nlohmann::json::parse(*before_);
    if (!j.is_object()) throw nlohmann::json::type_error::create(302, "not an object", nullptr);
    for (const auto& [engine, r] : j.items()) records_[engine] = from_json(r);
  } catch (const nlohmann::json::exception& e) {
    fail(path_ + ": cannot read install state, left untouched (" + e.what() + "); move it away to start afresh");
  }
}

std::optional<InstallRecord> InstallState::get(const std::string& engine) const {
  auto it = records_.find(engine);
  if (it == records_.end()) return std::nullopt;
  return it->second;
}

std::string InstallState::text() const {
  if (records_.empty()) return "";
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [engine, r] : records_) j[engine] = to_json(r);
  return j.dump(2) + "\n";
}

}  // namespace gnh
