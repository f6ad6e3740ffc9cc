#include "runtime/crun_status.h"

#include <nlohmann/json.hpp>

#include "runtime/json_object.h"

namespace gnh {

namespace {

std::optional<std::string> string_field(const nlohmann::json& doc, const char* key) {
  auto it = doc.find(key);
  if (it == doc.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

bool has_dotdot_component(std::string_view path) {
  size_t at = 0;
  while (at <= path.size()) {
    size_t end = path.find('/', at);
    if (end == std::string_view::npos) end = path.size();
    if (path.substr(at, end - at) == "..") return true;
    at = end + 1;
  }
  return false;
}

}  // namespace

CrunStatus parse_crun_status(std::string_view json) {
  auto doc = parse_json_object<nlohmann::json>(json, "crun status");
  CrunStatus s;
  if (auto b = string_field(doc, "bundle"); b && !b->empty()) s.bundle = *b;
  if (auto p = string_field(doc, "cgroup-path"); p && !p->empty() && p->front() == '/' && !has_dotdot_component(*p))
    s.cgroup_path = *p;
  return s;
}

}  // namespace gnh
