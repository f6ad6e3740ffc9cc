#include "install/nvidia_mode.h"

#include "install/toml_text.h"

namespace gnh {

NvidiaMode nvidia_runtime_mode(std::string_view text, const std::string& file) {
  toml::table t = parse_toml_file(text, file);
  if (auto m = t["nvidia-container-runtime"]["mode"].value<std::string>()) return {*m, true};
  return {"auto", false};
}

std::string nvidia_mode_never_runs_hook(const NvidiaMode& m, const std::string& file) {
  if (m.mode == "legacy") return "";
  const char* resolves = "resolves to jit-cdi, or cdi when every device is a CDI name)";
  std::string found = m.set ? "[nvidia-container-runtime] mode = \"" + m.mode + "\"" +
                                  (m.mode == "auto" ? std::string(" (auto ") + resolves : std::string())
                            : std::string("no [nvidia-container-runtime] mode (NVIDIA's default, \"auto\", ") + resolves;
  return file + " has " + found +
         ": in that mode nvidia-container-runtime never runs [nvidia-container-runtime-hook] path, so gpu-numa-hook never "
         "runs; set mode = \"legacy\" there, or register the hook the way that mode runs it: the runtime shim in front of "
         "NVIDIA's runtime (install --runtime docker|containerd|crio-runtime), hooks.d (install --runtime podman|crio), "
         "NRI (install --runtime nri|crio-nri), or, in cdi mode, the createRuntime entry in NVIDIA's CDI spec (docs/runtimes.md)";
}

}  // namespace gnh
