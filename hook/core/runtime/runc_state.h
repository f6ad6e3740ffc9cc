// What the runtime shim needs from runc's own record of a running container
// (<root>/<id>/state.json, written by runc): the bundle (config.labels "bundle=<dir>", from which
// the container's GPUs are found as the hook finds them) and the container's cpuset cgroup
// directory (cgroup_paths.cpuset on v1, cgroup_paths[""] on v2). Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gnh {

struct RuncState {
  std::optional<std::string> bundle;
  std::optional<std::string> cpuset_dir;  // absolute directory on the host
};

// Failure when the text is not a JSON object; missing fields are nullopt.
RuncState parse_runc_state(std::string_view json);

}  // namespace gnh
