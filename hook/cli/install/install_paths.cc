#include "cli/install/install_paths.h"

#include "config/config.h"

namespace gnh::install_cli {

HostRoot g_root;

std::string default_config_of(const std::string& runtime) {
  if (runtime == "docker") return "/etc/docker/daemon.json";
  if (runtime == "containerd") return "/etc/containerd/config.toml";
  if (runtime == "nvidia-legacy") return "/etc/nvidia-container-runtime/config.toml";
  if (runtime == "crio-runtime") return "/etc/crio/crio.conf.d";  // our drop-in goes here
  return "/usr/share/containers/oci/hooks.d";  // podman, crio: the hooks directory
}

std::string engine_file(const InstallCommandOptions& o, const std::string& runtime) {
  return g_root.machine(o.runtime_config.value_or(default_config_of(runtime)));
}

std::string our_config(const GlobalOptions& g) { return g.config_path.value_or(g_root.machine(kDefaultConfigPath)); }

}  // namespace gnh::install_cli
