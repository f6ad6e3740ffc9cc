// runc's command line as Docker, containerd's runc shim and kubelet (through containerd) write it:
// `runc [global options] <subcommand> [options] [<container-id>]`. The runtime shim reads only what
// it needs (the subcommand, --root, create's bundle, update's mems) and passes every argument on
// unchanged, so options it does not know cost nothing as long as we know which take a value.
// Pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gnh {

struct RuncCommandLine {
  std::string subcommand;           // "" when there is none (runc --version, --help)
  size_t subcommand_index = 0;      // its index in argv
  std::optional<std::string> root;  // global --root (runc's state directory)
  std::optional<std::string> log;   // global --log: where runc's caller reads runc's errors
  std::optional<std::string> log_format;  // "text" (default) or "json"
  std::optional<std::string> bundle;  // create/run: --bundle/-b
  std::optional<std::string> container_id;  // the first positional argument after the subcommand
  // update: --resources FILE|- and --cpuset-mems VALUE, with the argv index of each value.
  std::optional<std::string> resources;
  std::optional<std::string> cpuset_mems;
  size_t cpuset_mems_index = 0;
  bool cpuset_mems_inline = false;  // "--cpuset-mems=VALUE" in one argument
};

// Failure (EINVAL) for an option that needs a value and has none: runc would refuse it too, but
// the shim must not guess where the container id is.
RuncCommandLine parse_runc_command_line(const std::vector<std::string>& argv);

// The state directory runc uses without --root (runc's default for root).
constexpr const char* kRuncDefaultRoot = "/run/runc";

}  // namespace gnh
