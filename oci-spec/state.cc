#include "state.h"

#include <climits>

#include "json_fields.h"

namespace oci {

using namespace detail;

State parse_state(std::string_view text) {
  json j = parse_json(text, "the OCI state on stdin");
  if (!j.is_object()) throw ParseError("the OCI state on stdin must be a JSON object, not " + type_name(j));
  State s;
  s.oci_version = opt_string(j, "ociVersion", "").value_or("");
  s.id = opt_string(j, "id", "").value_or("");
  if (s.id.empty()) throw ParseError("the OCI state has no container id (field id)");
  s.status = opt_string(j, "status", "").value_or("");
  if (auto pid = opt_integer(j, "pid", "")) {
    if (*pid < 0 || *pid > INT_MAX) throw ParseError("pid " + std::to_string(*pid) + " is out of range");
    s.pid = static_cast<int>(*pid);
  }
  s.bundle = opt_string(j, "bundle", "").value_or("");
  if (s.bundle.empty()) s.bundle = opt_string(j, "bundlePath", "").value_or("");
  if (s.bundle.empty()) throw ParseError("the OCI state has no bundle (fields bundle / bundlePath)");
  s.root = opt_string(j, "root", "").value_or("");
  s.annotations = string_map(j, "annotations", "");
  return s;
}

}  // namespace oci
