#include "runtime/runc_state.h"

#include <nlohmann/json.hpp>

#include "base/error.h"

namespace gnh {

RuncState parse_runc_state(std::string_view json) {
  nlohmann::json s;
  try {
    s = nlohmann::json::parse(json);
  } catch (const nlohmann::json::parse_error& e) {
    fail(std::string("runc state.json is not valid JSON: ") + e.what());
  }
  if (!s.is_object()) fail("runc state.json is not a JSON object");
  RuncState r;
  if (auto paths = s.find("cgroup_paths"); paths != s.end() && paths->is_object()) {
    for (const char* key : {"cpuset", ""}) {
      auto p = paths->find(key);
      if (p != paths->end() && p->is_string() && !p->get<std::string>().empty()) {
        r.cpuset_dir = p->get<std::string>();
        break;
      }
    }
  }
  if (auto config = s.find("config"); config != s.end() && config->is_object()) {
    if (auto labels = config->find("labels"); labels != config->end() && labels->is_array()) {
      for (const auto& l : *labels) {
        if (!l.is_string()) continue;
        const std::string label = l.get<std::string>();
        if (label.rfind("bundle=", 0) == 0) r.bundle = label.substr(7);
      }
    }
  }
  return r;
}

}  // namespace gnh
