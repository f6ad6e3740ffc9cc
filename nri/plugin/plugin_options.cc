#include "plugin/plugin_options.h"

#include <CLI/CLI.hpp>
#include <cctype>
#include <cstdio>

#include "check/nri_plugin_state.h"
#include "plugin/preset_socket.h"

namespace gnh::nri {

namespace {

bool two_digits(const std::string& idx) {
  return idx.size() == 2 && std::isdigit(static_cast<unsigned char>(idx[0])) &&
         std::isdigit(static_cast<unsigned char>(idx[1]));
}

ParsedPluginOptions usage_error(std::string error) {
  ParsedPluginOptions r;
  r.exit_code = 2;
  r.error = "gpu-numa-nri: " + std::move(error);
  return r;
}

}  // namespace

ParsedPluginOptions parse_plugin_options(int argc, const char* const* argv,
                                         const std::function<const char*(const char*)>& getenv,
                                         const std::function<bool(int)>& is_socket) {
  PluginOptions o;
  o.state_path = kNriStatePath;
  std::string hook_config;
  std::string metrics_address;
  CLI::App app{"gpu-numa-nri: the NRI plugin of gpu-numa-hook (adds the hook to GPU containers, keeps GPU "
               "memory nodes in cpuset.mems updates)"};
  app.add_option("--socket", o.socket_path, "NRI socket to connect to (external mode)");
  app.add_option("--name", o.name, "plugin name to register");
  app.add_option("--idx", o.idx, "plugin index to register (two digits: the order among plugins)");
  app.add_option("--config", o.config_path, "our configuration file (its [log] section is used)");
  app.add_option("--hook", o.hook.path, "host path of gpu-numa-hook that runc runs at createRuntime");
  app.add_option("--hook-config", hook_config, "configuration file the injected hook is given (--config)");
  app.add_option("--hook-timeout", o.hook.timeout_s, "the injected hook's timeout in seconds")->check(CLI::Range(1, 120));
  app.add_option("--host-root", o.hook.host_root,
                 "where the node's / is mounted (in a container): the hook is checked, cgroups, the driver's GPU "
                 "files and the running containers' specs are read there")
      ->check(CLI::ExistingDirectory);
  app.add_option("--state-file", o.state_path, "where the connection state is written for `check`");
  app.add_option("--metrics-address", metrics_address,
                 "serve Prometheus metrics at http://HOST:PORT/metrics (HOST:PORT, [IPV6]:PORT or :PORT; off when unset)");
  app.add_option("--scan-interval", o.scan_interval_s,
                 "seconds between scans of the running containers for GPU containers without the hook (0: at start only)")
      ->check(CLI::Range(0, 86400));
  app.add_flag("--version", o.version, "print the version");
  app.add_flag("--ready", o.ready, "exit 0 when the running plugin is registered and its hook usable (a readiness probe)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    ParsedPluginOptions r;
    r.exit_code = app.exit(e);  // --help prints and is 0; a usage error prints CLI11's lines
    return r;
  }
  if (o.version || o.ready) return {o, 0, ""};
  if (!metrics_address.empty()) {
    std::string error;
    o.metrics_at = parse_metrics_address(metrics_address, &error);
    if (!o.metrics_at) return usage_error(error);
  }
  if (!hook_config.empty()) o.hook.extra_args = {"--config", hook_config};
  // Pre-registered: the runtime started us with the connection on an fd and our name and index.
  if (const char* fd = getenv("NRI_PLUGIN_SOCKET")) {
    std::string why;
    auto parsed = parse_preset_socket(fd, &why);
    if (parsed && !is_socket(*parsed)) why = "is not an open socket here";
    if (!why.empty()) {
      char value[48];
      std::snprintf(value, sizeof value, "%.40s", fd);
      return usage_error("NRI_PLUGIN_SOCKET='" + std::string(value) + "' " + why +
                         " (a runtime starting a pre-registered plugin passes the connection's descriptor there; unset "
                         "it to dial the runtime's socket)");
    }
    o.preset_fd = *parsed;
    if (const char* n = getenv("NRI_PLUGIN_NAME")) o.name = n;
    if (const char* i = getenv("NRI_PLUGIN_IDX")) o.idx = i;
  }
  if (!two_digits(o.idx)) {
    char value[48];
    std::snprintf(value, sizeof value, "%.40s", o.idx.c_str());
    return usage_error("--idx '" + std::string(value) + "' is not two digits (00-99)");
  }
  return {o, 0, ""};
}

}  // namespace gnh::nri
