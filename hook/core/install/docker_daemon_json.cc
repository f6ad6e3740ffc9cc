#include <nlohmann/json.hpp>

#include "base/error.h"
#include "install/config_edit.h"

namespace gnh {

std::string edit_docker_daemon_json(std::string_view text, const std::string& file, const InstallOptions& o) {
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
    if (d.value("default-runtime", "") == kRuntimeName) d.erase("default-runtime");
  } else {
    auto& ours = d["runtimes"][kRuntimeName];
    if (!ours.is_object()) ours = nlohmann::ordered_json::object();
    ours["path"] = o.runtime_path;
    if (o.set_default) d["default-runtime"] = kRuntimeName;
  }
  if (d.empty()) return "{}\n";
  return d.dump(2) + "\n";
}

}  // namespace gnh
