// What `check` needs from crun's own record of a container, <root>/<id>/status (crun's
// libcrun/status.c; root /run/crun unless --root or, rootless, $XDG_RUNTIME_DIR/crun): the bundle
// (its config.json names the GPUs) and "cgroup-path", the container's cgroup relative to each
// hierarchy's root: "/machine.slice/libpod-<id>.scope/container" with the systemd driver (the
// "container" sub-cgroup is crun's default there), "/libpod_parent/libpod-<id>" with cgroupfs. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gnh {

struct CrunStatus {
  std::optional<std::string> bundle;
  std::optional<std::string> cgroup_path;  // absolute within the hierarchy; nullopt when crun made none
};

// Failure when the text is not a JSON object. A missing, empty or relative "cgroup-path" is
// nullopt (crun writes "" when it put the container in no cgroup); so is one with a ".."
// component, which no runtime writes and which would leave the hierarchy.
CrunStatus parse_crun_status(std::string_view json);

}  // namespace gnh
