// The subcommands, each a thin function over the pipeline. They print; nothing below them does.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "cli/global_options.h"

namespace gnh {

// Hook mode (prestart / createRuntime): OCI state on stdin. `next_hook_args` are our argv after
// argv[0] without our global options, for chained mode.
int run_hook(const GlobalOptions& opts, const std::string& stage, const std::vector<std::string>& next_hook_args);
int run_explain(const GlobalOptions& opts, const std::string& bundle, int pid, bool json);
int run_topology(const GlobalOptions& opts, bool json);
// `topology --refresh`: runs gpu-numa-nvml-probe and writes the NVML cache (docs/platforms/mig.md). Exit 0
// written, 2 not (the old cache is left as it was).
int run_topology_refresh(const GlobalOptions& opts, const std::optional<std::string>& nvml_library);
// `topology --follow`: refreshes at start and whenever the driver's GPUs or MIG layouts differ from
// the NVML cache, until SIGTERM (exit 0). Exit 2 only when it cannot start (its config).
int run_topology_follow(const GlobalOptions& opts, long interval_ms);

struct CheckOptions {
  bool fix = false;
  bool fix_if_configured = false;  // fix only when the config says [check] fix = true (the timer unit)
  bool json = false;
  std::optional<std::string> prometheus_file;  // node_exporter textfile, a path on this machine
};
// Exit (base/exit_code.h) 0 clean or all fixed, 1 problems left, 2 the check itself failed.
int run_check(const GlobalOptions& opts, const CheckOptions& check);
// Exit 0 ready, 1 timed out (or never ready), 2 error. json: one object on stdout at the end.
int run_wait(const GlobalOptions& opts, double timeout_seconds, bool json);

struct StatusOptions {
  bool json = false;
  size_t refusals = 5;  // the log's last refusal lines shown
};
// Exit 0 protected, 1 not protected, 2 cannot tell.
int run_status(const GlobalOptions& opts, const StatusOptions& status);

// `config check`: exit 0 valid (or absent), 1 one line per problem the hook ignores, 2 unusable.
int run_config_check(const GlobalOptions& opts, bool json);

struct InstallCommandOptions {
  std::string runtime;  // docker, containerd, crio-runtime, podman, crio, nvidia-legacy
  std::optional<std::string> runtime_config;  // the file (or hooks directory) to edit
  std::string runtime_path = "/usr/bin/gpu-numa-runtime";
  std::string hook_path = "/usr/bin/gpu-numa-hook";
  bool set_default = false;
  bool dry_run = false;
  bool uninstall = false;
  bool json = false;  // one object at the end instead of the lines (schema_version 1)
  std::optional<std::string> containerd_version;  // MAJOR.MINOR instead of `containerd --version`
  // --runtime nri: also install the pre-registered plugin (<dir>/99-gpu-numa) running this binary.
  bool nri_pre_registered = false;
  std::string nri_plugin_dir = "/opt/nri/plugins";
  std::string nri_plugin_path = "/usr/bin/gpu-numa-nri";
  // --runtime nri: NRI's default validator on (containerd 2.2+), so annotated GPU pods fail closed.
  bool nri_require_for_gpu_pods = false;
  // --uninstall --all: every engine install-state.json records, each from its recorded file (what
  // the package runs before its binaries go).
  bool all = false;
  std::optional<std::string> boot_gate;  // docker, containerd, kubelet, crio: the `wait` drop-in
};
// Exit 0 done (or nothing to do), 2 error (the file is left untouched; --all: an engine that
// could not be undone, the others are).
int run_install(const GlobalOptions& opts, const InstallCommandOptions& install);

}  // namespace gnh
