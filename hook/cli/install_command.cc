// `gpu-numa-hook install --runtime docker|containerd|crio-runtime|podman|crio|nvidia-legacy`:
// registers the hook (or the runtime shim) in an engine's configuration, as `nvidia-ctk runtime
// configure` does. The edits are pure (install/engine_config.h for the engines, install/
// config_edit.h for the rest); cli/install/ does the rest: read, back up, write atomically, or print
// the diff (file_writer); our config's chain to NVIDIA's runtime (engine_registration);
// install-state.json (install_record: every file of ours recorded, so --uninstall --all and the
// package's removal leave none); and the one line saying what to restart (install_report).
// Under --host-root DIR every path install reads or writes is the host's path beneath DIR
// (install_paths). This file: the arguments refused before anything is read, and which
// registration (cli/install/registrations.h) runs.
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <string>
#include <utility>

#include "base/exit_code.h"
#include "cli/commands.h"
#include "cli/install/install_paths.h"
#include "cli/install/install_report.h"
#include "cli/install/our_config_guard.h"
#include "cli/install/registrations.h"
#include "install/engine_config.h"

namespace gnh {

using namespace install_cli;

int run_install(const GlobalOptions& g, const InstallCommandOptions& given) {
  // The engine's file as an absolute path: install-state.json records it, and the package's
  // removal undoes it from / (--uninstall --all), not from the directory install ran in.
  InstallCommandOptions o = given;
  g_root.dir = g.host_root.value_or("");
  while (!g_root.dir.empty() && g_root.dir.back() == '/') g_root.dir.pop_back();
  g_report.json = o.json;
  if (!g_root.dir.empty()) {
    // Beneath DIR a relative path has no meaning on the host: refused rather than guessed.
    for (const auto& [name, value] : {std::pair<const char*, std::string>{"--runtime-config", o.runtime_config.value_or("/")},
                                      {"--nri-plugin-dir", o.nri_plugin_dir}})
      if (value.empty() || value.front() != '/') {
        std::fprintf(stderr, "gpu-numa-hook: error: install: %s %s: with --host-root give the host's absolute path "
                             "(it is taken beneath %s)\n", name, value.c_str(), g_root.dir.c_str());
        return as_int(ExitCode::error);
      }
  } else if (o.runtime_config && !o.runtime_config->empty() && o.runtime_config->front() != '/') {
    char cwd[4096];
    if (::getcwd(cwd, sizeof cwd)) o.runtime_config = std::string(cwd) + "/" + *o.runtime_config;
  }
  const std::string& rt = o.runtime;
  InstallOptions io;
  io.runtime_path = o.runtime_path;
  io.hook_path = o.hook_path;
  io.set_default = o.set_default;
  io.uninstall = o.uninstall;
  if (o.all && !o.uninstall) {
    std::fprintf(stderr, "gpu-numa-hook: error: install: --all goes with --uninstall (install names one --runtime at a time)\n");
    return as_int(ExitCode::error);
  }
  if (rt.empty() && !o.all && !o.boot_gate) {
    std::fprintf(stderr, "gpu-numa-hook: error: install: give --runtime ENGINE, --boot-gate SERVICE or --uninstall --all\n");
    return as_int(ExitCode::error);
  }
  if (o.set_default && rt != "docker" && rt != "containerd" && rt != "crio-runtime") {
    std::fprintf(stderr, "gpu-numa-hook: error: install: --set-default applies to docker, containerd and crio-runtime only\n");
    return as_int(ExitCode::error);
  }
  try {
    if (o.boot_gate) return install_boot_gate(g, o);
    if (o.all) return uninstall_all(g, o);
    vet_our_config(our_config(g), engine_file(o, rt), rt);
    if (rt == "docker" || rt == "containerd" || rt == "crio-runtime") return install_engine(g, o);
    if (rt == "nri" || rt == "crio-nri") return install_nri(g, o);
    if (rt == "podman" || rt == "crio") return install_hooks_d(g, o, io);
    if (rt == "nvidia-legacy") return install_nvidia_legacy(g, o, io);
    std::fprintf(stderr, "gpu-numa-hook: error: install: --runtime must be docker, containerd, podman, crio, crio-runtime, "
                         "nvidia-legacy, nri or crio-nri\n");
    return as_int(ExitCode::error);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu-numa-hook: error: install: %s\n", e.what());
    return as_int(ExitCode::error);
  }
}

}  // namespace gnh
