#include "status/double_registration.h"

namespace gnh {

namespace {

const EngineFact* registered(const StatusFacts& f, const std::string& engine) {
  for (const EngineFact& e : f.engines)
    if (e.engine == engine && e.registered && e.error.empty()) return &e;
  return nullptr;
}

const EngineFact* hooks_d(const StatusFacts& f) {
  for (const EngineFact& e : f.engines)
    if (e.how == "hooks.d" && e.registered && e.error.empty()) return &e;
  return nullptr;
}

// The runtime the NRI plugin is connected to, by NRI's runtime name ("containerd v2.1.9",
// "cri-o 1.31.0"); unknown counts as either.
bool nri_runtime_is(const StatusFacts& f, const std::string& name) {
  return f.nri_runtime.empty() || f.nri_runtime.rfind(name, 0) == 0;
}

}  // namespace

std::vector<std::string> double_registrations(const StatusFacts& f) {
  std::vector<std::string> out;
  const EngineFact* hooks = hooks_d(f);
  const EngineFact* crio_shim = registered(f, "crio-runtime");
  const EngineFact* containerd_shim = registered(f, "containerd");
  const EngineFact* legacy = registered(f, "nvidia-legacy");
  if (legacy && !legacy->never_runs.empty()) legacy = nullptr;  // outside legacy mode it never runs: nothing twice
  const std::string nri = "the NRI plugin (" + (f.nri_runtime.empty() ? std::string("connected") : "connected to " + f.nri_runtime) + ")";
  if (f.nri_connected && hooks && nri_runtime_is(f, "cri-o"))
    out.push_back("registered twice: " + nri + " and hooks.d (" + hooks->file +
                  ") both give every CRI-O container the hook; keep one: gpu-numa-hook install --runtime crio --uninstall");
  if (f.nri_connected && crio_shim && nri_runtime_is(f, "cri-o"))
    out.push_back("registered twice: " + nri + " and the gpu-numa runtime (" + crio_shim->file +
                  ") both give CRI-O's gpu-numa containers the hook; keep one: gpu-numa-hook install --runtime crio-runtime --uninstall");
  if (f.nri_connected && containerd_shim && nri_runtime_is(f, "containerd"))
    out.push_back("registered twice: " + nri + " and the gpu-numa runtime (" + containerd_shim->file +
                  ") both give containerd's gpu-numa containers the hook; keep one: gpu-numa-hook install --runtime containerd --uninstall");
  if (hooks && crio_shim)
    out.push_back("registered twice: hooks.d (" + hooks->file + ") and the gpu-numa runtime (" + crio_shim->file +
                  ") both give CRI-O's gpu-numa containers the hook; keep one: gpu-numa-hook install --runtime crio-runtime --uninstall");
  if (legacy)
    for (const EngineFact& e : f.engines)
      if (&e != legacy && e.registered && e.error.empty() && e.engine != "nvidia-legacy")
        out.push_back("registered twice: nvidia-container-runtime in legacy mode (" + legacy->file + ") and " +
                      (e.how == "hooks.d" ? "hooks.d" : e.engine + "'s gpu-numa runtime") + " (" + e.file +
                      ") both give containers that run through NVIDIA's runtime the hook; keep one: gpu-numa-hook install "
                      "--runtime nvidia-legacy --uninstall");
  return out;
}

}  // namespace gnh
