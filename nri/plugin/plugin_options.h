// gpu-numa-nri's command line and the runtime's NRI_PLUGIN_* variables, read into one value.
// Everything main needs before it touches the host: parsed here, tested without a runtime.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "plugin/decisions.h"
#include "plugin/metrics_address.h"

namespace gnh::nri {

struct PluginOptions {
  std::string socket_path = "/var/run/nri/nri.sock";
  std::string name = "gpu-numa";
  std::string idx = "99";  // last: after any resource manager that sets cpu.mems (docs/nri.md)
  std::string config_path;
  std::string state_path;  // kNriStatePath unless --state-file
  HookSettings hook;
  std::optional<MetricsAddress> metrics_at;
  int scan_interval_s = 60;  // the running containers' specs, read for unprotected GPU containers
  int preset_fd = -1;        // pre-registered: the connection the runtime handed us (NRI_PLUGIN_SOCKET)
  bool version = false;
  bool ready = false;
};

// What main does after the parse: run with `options`, or return `exit_code` (after --help, whose
// text CLI11 printed, or a usage error, whose one line is in `error`).
struct ParsedPluginOptions {
  std::optional<PluginOptions> options;
  int exit_code = 0;
  std::string error;
};

// `getenv` reads the runtime's variables (std::getenv in the program). `is_socket` says whether a
// descriptor is an open socket here (fstat in the program): a pre-registered plugin's connection.
ParsedPluginOptions parse_plugin_options(int argc, const char* const* argv,
                                         const std::function<const char*(const char*)>& getenv,
                                         const std::function<bool(int)>& is_socket);

}  // namespace gnh::nri
