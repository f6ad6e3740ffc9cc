// The subcommands, each a thin function over the pipeline. They print; nothing below them does.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gnh {

struct GlobalOptions {
  std::optional<std::string> host_root;
  std::optional<std::string> config_path;
};

// Hook mode (prestart / createRuntime): OCI state on stdin. `next_hook_args` are our argv after
// argv[0] without our global options, for chained mode.
int run_hook(const GlobalOptions& opts, const std::string& stage, const std::vector<std::string>& next_hook_args);
int run_explain(const GlobalOptions& opts, const std::string& bundle, int pid, bool json);
int run_topology(const GlobalOptions& opts, bool json);

}  // namespace gnh
