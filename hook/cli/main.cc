// gpu-numa-hook: command line. Every subcommand is a function in commands.h; nothing escapes main.
// First: CLI11 includes <iostream>, which would build the standard streams before main.
#include "cli/lazy_standard_streams.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/duration.h"
#include "base/exit_code.h"
#include "base/text.h"
#include "cli/commands.h"

namespace {

bool is_hook_stage(std::string_view a) { return a == "prestart" || a == "createRuntime"; }

// Hook mode runs on every container start, always with one argv shape: `[--host-root DIR]
// [--config FILE] prestart|createRuntime` (each option at most once, "--opt VALUE" or
// "--opt=VALUE"). That shape is read here without building the CLI11 app (0.27 M instructions, ~9%
// of a start: docs/internals/benchmarks.md). Anything else (help, a duplicate, an empty or dash-led value,
// another subcommand) goes to CLI11 as before.
std::optional<int> run_hook_without_cli11(int argc, char** argv) {
  if (argc < 2 || !is_hook_stage(argv[argc - 1])) return std::nullopt;
  gnh::GlobalOptions opts;
  for (int i = 1; i < argc - 1; ++i) {
    std::string_view value;
    // argc - 1: an option's value is never the stage itself.
    const gnh::GlobalOptionSpec* spec = gnh::match_global_option(argc - 1, argv, &i, &value);
    if (!spec || opts.*spec->field || value.empty() || value.front() == '-') return std::nullopt;
    opts.*spec->field = std::string(value);
  }
  return gnh::run_hook(opts, argv[argc - 1], gnh::args_without_global_options(argc, argv));
}

// A command-line mistake: one line, exit 2 (CLI11's own text spans lines and, for a range check
// on a double, prints a range hundreds of digits long; our options check ranges themselves).
int usage_error(const std::string& what) {
  std::fprintf(stderr, "gpu-numa-hook: error: %s (gpu-numa-hook --help lists the commands)\n", gnh::one_line(what).c_str());
  return gnh::as_int(gnh::ExitCode::error);
}

// CLI11 reports a missing subcommand before an unknown option: name the option, which is the mistake.
std::string parse_error_text(const CLI::ParseError& e, int argc, char** argv) {
  std::string what = e.what();
  if (what == "A subcommand is required") {
    for (int i = 1; i < argc; ++i) {
      std::string_view a = argv[i];
      int j = i;
      std::string_view value;
      if (gnh::match_global_option(argc, argv, &j, &value)) {
        i = j;
        continue;
      }
      if (a.size() > 1 && a.front() == '-' && a != "--help" && a != "-h" && a != "--version")
        return "unknown option " + std::string(a);
      return "unknown command " + std::string(a);
    }
    return "a command is required";
  }
  return what;
}

// Set once we know this run is hook mode: only there may an unexpected failure exit 0.
bool g_hook_mode = false;

int run(int argc, char** argv) {
  g_hook_mode = argc >= 2 && is_hook_stage(argv[argc - 1]);
  if (auto code = run_hook_without_cli11(argc, argv)) return *code;
  // The tools' path: CLI11 prints help, version and errors to std::cout/cerr.
  static const gnh::StandardStreams streams;
  CLI::App app{"gpu-numa-hook: keeps GPU containers' cpuset.mems in step with their GPUs' NUMA nodes.\n"
               "As an OCI prestart/createRuntime hook it reads the container state on stdin."};
  app.set_version_flag("--version", std::string("gpu-numa-hook ") + GNH_VERSION + " (revision " + GNH_REVISION + ")");
  gnh::GlobalOptions opts;
  for (const auto& spec : gnh::global_option_specs())
    app.add_option(std::string(spec.name), opts.*spec.field, std::string(spec.help))->type_name(std::string(spec.value_name));
  app.require_subcommand(1, 1);
  // Global options after the subcommand too (`install ... --config F`): subcommands inherit this.
  app.fallthrough();

  auto* prestart = app.add_subcommand("prestart", "Hook mode for the prestart stage (OCI state on stdin)");
  auto* create_runtime = app.add_subcommand("createRuntime", "Hook mode for the createRuntime stage (OCI state on stdin)");

  std::string bundle;
  int pid = 0;
  bool json = false;
  auto* explain = app.add_subcommand("explain", "Show the hook's decision for a bundle without writing anything");
  explain->add_option("--bundle", bundle, "Bundle directory holding config.json")->required()->type_name("DIR");
  explain->add_option("--pid", pid, "Pid of the running container (else its cgroup is predicted from linux.cgroupsPath)");
  explain->add_flag("--json", json, "One JSON object");

  bool topo_json = false;
  auto* topology = app.add_subcommand("topology", "Show the GPUs the driver reports and their NUMA nodes");
  topology->add_flag("--json", topo_json, "One JSON object");
  bool topo_refresh = false;
  std::optional<std::string> nvml_library;
  topology->add_flag("--refresh", topo_refresh, "Ask NVML (gpu-numa-nvml-probe) for MIG devices and write the NVML cache");
  topology->add_option("--nvml-library", nvml_library, "With --refresh: this libnvidia-ml.so.1 (absolute path) instead of the host's")
      ->type_name("FILE");
  bool topo_follow = false;
  long follow_interval_ms = 2000;
  topology->add_flag("--follow", topo_follow,
                     "Refresh now and whenever the driver's GPUs or MIG layouts differ from the NVML cache, until SIGTERM");
  topology->add_option("--interval-ms", follow_interval_ms, "With --follow: how often the driver's listing is read (default 2000)")
      ->check(CLI::Range(100L, 3'600'000L));

  gnh::CheckOptions check_opts;
  auto* check = app.add_subcommand("check", "Walk the whole cpuset hierarchy for cgroups lacking memory nodes (exit 1 when found)");
  check->add_flag("--fix", check_opts.fix, "Widen stale cgroups top-down under the hook's lock (never removes a node)");
  check->add_flag("--fix-if-configured", check_opts.fix_if_configured, "Fix only when the config sets [check] fix = true");
  check->add_flag("--json", check_opts.json, "One JSON object");
  check->add_option("--prometheus", check_opts.prometheus_file, "Also write node_exporter textfile metrics to FILE (atomically)")
      ->type_name("FILE");

  std::string wait_timeout = "300";
  bool wait_json = false;
  auto* wait = app.add_subcommand("wait", "Block until every GPU memory node is online and in the root cpuset (exit 1 on timeout)");
  wait->add_option("--timeout", wait_timeout, "Give up after DURATION: 90s, 5m, 1500ms, 1h, or plain seconds (default 300)")
      ->type_name("DURATION");
  wait->add_flag("--json", wait_json, "One JSON object when wait ends (progress goes to stderr)");

  gnh::StatusOptions status_opts;
  auto* status = app.add_subcommand("status", "Is this node protected? Engines, binaries, config, GPU memory, cgroups, "
                                              "refusals, timer (exit 0 yes, 1 no, 2 cannot tell)");
  status->add_flag("--json", status_opts.json, "One JSON object (schema_version 1)");
  status->add_option("--refusals", status_opts.refusals, "How many of the log's last refusals to show (default 5)")
      ->type_name("N")->check(CLI::Range(0, 1000));

  gnh::InstallCommandOptions install_opts;
  auto* install = app.add_subcommand("install", "Register the hook or the runtime shim with a container engine");
  auto* install_runtime = install->add_option("--runtime", install_opts.runtime, "The engine");
  install_runtime->check(CLI::IsMember({"docker", "containerd", "podman", "crio", "crio-runtime", "nvidia-legacy", "nri", "crio-nri"}));
  install->add_option("--runtime-config", install_opts.runtime_config,
                      "The engine's file (podman, crio: the hooks directory) instead of its default (beneath --host-root DIR)")->type_name("FILE");
  install->add_option("--runtime-path", install_opts.runtime_path, "Where gpu-numa-runtime is (default /usr/bin/gpu-numa-runtime)")->type_name("FILE");
  install->add_option("--hook-path", install_opts.hook_path, "Where gpu-numa-hook is (default /usr/bin/gpu-numa-hook)")->type_name("FILE");
  // --set-as-default: nvidia-ctk's spelling, as operators type it from habit.
  install->add_flag("--set-default,--set-as-default", install_opts.set_default,
                    "docker, containerd, crio-runtime: make gpu-numa the default runtime");
  install->add_flag("--dry-run", install_opts.dry_run, "Print the diff; write nothing");
  install->add_flag("--uninstall", install_opts.uninstall, "Remove exactly what install adds");
  install->add_flag("--json", install_opts.json, "One JSON object: each file and what was done to it");
  install->add_option("--containerd-version", install_opts.containerd_version,
                      "containerd: its MAJOR.MINOR (1.7, 2.1) instead of asking `containerd --version` (needed with --host-root)")->type_name("X.Y");
  install->add_flag("--nri-pre-registered", install_opts.nri_pre_registered,
                    "nri: also install the plugin the runtime starts itself (<--nri-plugin-dir>/99-gpu-numa)");
  install->add_flag("--nri-require-for-gpu-pods", install_opts.nri_require_for_gpu_pods,
                    "nri: containerd 2.2+: turn on NRI's default validator, so pods annotated required-plugins.noderesource.dev: [\"gpu-numa\"] fail while the plugin is absent");
  install->add_option("--nri-plugin-dir", install_opts.nri_plugin_dir, "nri: the runtime's plugin directory (default /opt/nri/plugins)")->type_name("DIR");
  install->add_option("--nri-plugin-path", install_opts.nri_plugin_path, "nri: where gpu-numa-nri is (default /usr/bin/gpu-numa-nri)")->type_name("FILE");
  auto* install_all = install->add_flag("--all", install_opts.all,
                                        "With --uninstall: every registration install-state.json records (what removing the package runs)");
  auto* install_gate = install->add_option("--boot-gate", install_opts.boot_gate,
                                           "The systemd drop-in holding SERVICE's start until GPU memory is online (`wait`)")
                           ->type_name("SERVICE")->check(CLI::IsMember({"docker", "containerd", "kubelet", "crio"}));
  install_runtime->excludes(install_all)->excludes(install_gate);
  install_all->excludes(install_gate);

  bool config_json = false;
  auto* config = app.add_subcommand("config", "Validate gpu-numa-hook's own configuration");
  config->require_subcommand(1, 1);
  auto* config_check = config->add_subcommand(
      "check", "Print each problem the hook ignores in its config (exit 0 valid, 1 problems, 2 unusable)");
  config_check->add_flag("--json", config_json, "One JSON object");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    return usage_error(parse_error_text(e, argc, argv));
  }
  if (*prestart) return gnh::run_hook(opts, "prestart", gnh::args_without_global_options(argc, argv));
  if (*create_runtime) return gnh::run_hook(opts, "createRuntime", gnh::args_without_global_options(argc, argv));
  if (*explain) return gnh::run_explain(opts, bundle, pid, json);
  if (*topology && topo_follow) return gnh::run_topology_follow(opts, follow_interval_ms);
  if (*topology && topo_refresh) return gnh::run_topology_refresh(opts, nvml_library);
  if (*topology) return gnh::run_topology(opts, topo_json);
  if (*check) return gnh::run_check(opts, check_opts);
  if (*wait) {
    std::string why;
    auto seconds = gnh::parse_duration_seconds(wait_timeout, &why);
    if (!seconds) return usage_error("wait --timeout: " + why);
    return gnh::run_wait(opts, *seconds, wait_json);
  }
  if (*status) return gnh::run_status(opts, status_opts);
  if (*install) return gnh::run_install(opts, install_opts);
  if (*config_check) return gnh::run_config_check(opts, config_json);
  return gnh::as_int(gnh::ExitCode::error);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu-numa-hook: error: unexpected: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "gpu-numa-hook: error: unexpected failure\n");
  }
  // Hook mode's on-error=allow: a hook that fails in an unknown way lets the container start (its
  // own run_hook already maps every known failure through the policy). Every tool reports it.
  return g_hook_mode ? 0 : gnh::as_int(gnh::ExitCode::error);
}
