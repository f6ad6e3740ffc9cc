#include "runtime/runc_state.h"

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "runtime/json_object.h"

namespace gnh {

RuncState parse_runc_state(std::string_view json) {
  auto s = parse_json_object<nlohmann::json>(json, "runc state.json");
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
