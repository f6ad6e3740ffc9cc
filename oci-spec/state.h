// The OCI state a runtime writes on a hook's stdin (runtime-spec runtime.md), in the variants real
// runtimes send: runc ("creating"), crun ("created" plus "root"), old Docker ("bundlePath").
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace oci {

struct State {
  std::string oci_version;
  std::string id;
  std::string status;
  int pid = 0;           // 0 when absent (a state for a stopped container)
  std::string bundle;    // from "bundle" or legacy "bundlePath"
  std::string root;      // crun only; informational
  std::map<std::string, std::string> annotations;
};

// Throws ParseError naming the field for malformed JSON, wrong types or missing required fields
// (id, bundle). Does not judge values (absolute bundle, live pid): that is the caller's policy.
State parse_state(std::string_view json);

}  // namespace oci
