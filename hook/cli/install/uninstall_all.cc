#include "cli/install/registrations.h"

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/exit_code.h"
#include "cli/install/install_paths.h"
#include "host/install/install_state.h"
#include "install/boot_gate.h"

namespace gnh::install_cli {

int uninstall_all(const GlobalOptions& g, const InstallCommandOptions& o) {
  const InstallState state(our_config(g));
  const std::vector<std::string> engines = state.engines();
  if (engines.empty()) {
    std::printf("nothing to do: no registration recorded (%s)\n", state.path().c_str());
    return as_int(ExitCode::ok);
  }
  int failed = 0;
  for (const std::string& e : engines) {
    const InstallRecord r = *state.get(e);
    InstallCommandOptions one = o;
    one.all = false;
    one.runtime = e;
    one.runtime_config = r.config;
    std::printf("== %s (%s)\n", e.c_str(), g_root.machine(r.config).c_str());
    std::fflush(stdout);
    try {
      InstallOptions io;
      io.runtime_path = o.runtime_path;
      io.hook_path = o.hook_path;
      io.uninstall = true;
      if (e.rfind("boot-gate:", 0) == 0) {
        one.runtime.clear();
        one.boot_gate = e.substr(10);
        if (!boot_gate_unit(*one.boot_gate)) fail("install-state.json names an unknown boot gate '" + e + "'");
        install_boot_gate(g, one);
      } else if (e == "docker" || e == "containerd" || e == "crio-runtime") {
        install_engine(g, one);
      } else if (e == "podman" || e == "crio") {
        install_hooks_d(g, one, io);
      } else if (e == "nvidia-legacy") {
        install_nvidia_legacy(g, one, io);
      } else if (e == "nri" || e == "crio-nri") {
        install_nri(g, one);
      } else {
        fail("install-state.json names '" + e + "', which this gpu-numa-hook does not know: left as it is");
      }
    } catch (const std::exception& ex) {
      std::fflush(stdout);
      std::fprintf(stderr, "gpu-numa-hook: error: install --uninstall --all: %s: %s\n", e.c_str(), ex.what());
      ++failed;
    }
  }
  return as_int(failed ? ExitCode::error : ExitCode::ok);
}

}  // namespace gnh::install_cli
