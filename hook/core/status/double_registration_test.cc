// status: the hook registered twice for the same containers, from hand-made facts.
#include <doctest/doctest.h>

#include "status/double_registration.h"

using namespace gnh;

namespace {

EngineFact fact(const std::string& engine, const std::string& how, const std::string& file, bool registered = true) {
  return EngineFact{engine, how, file, registered, false, "", {}};
}

const char* kHooksD = "/etc/containers/oci/hooks.d/gpu-numa-hook.json";

}  // namespace

TEST_CASE("double registration: hooks.d and the NRI plugin on CRI-O, named both, one line") {
  StatusFacts f;
  f.engines.push_back(fact("podman/crio (hooks.d)", "hooks.d", kHooksD));
  f.nri_connected = true;
  f.nri_runtime = "cri-o 1.31.0";
  auto lines = double_registrations(f);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == std::string("registered twice: the NRI plugin (connected to cri-o 1.31.0) and hooks.d (") + kHooksD +
                        ") both give every CRI-O container the hook; keep one: gpu-numa-hook install --runtime crio --uninstall");
  // the verdict keeps the node protected and carries the line as a note
  f.config_path = "/etc/gpu-numa-hook/config.toml";
  f.gpus_read = f.cgroups_read = f.timer_unit_installed = f.timer_enabled = f.containers.read = true;
  StatusVerdict v = judge_status(f);
  CHECK(v.exit_code() == 0);
  REQUIRE(v.notes.size() == 2);
  CHECK(v.notes[0] == lines[0]);
}

TEST_CASE("double registration: containerd has no hooks.d, so hooks.d with the plugin on containerd is once") {
  StatusFacts f;
  f.engines.push_back(fact("podman/crio (hooks.d)", "hooks.d", kHooksD));
  f.nri_connected = true;
  f.nri_runtime = "containerd v2.1.9";
  CHECK(double_registrations(f).empty());
  // ... but containerd's gpu-numa runtime with the plugin is twice
  f.engines.push_back(fact("containerd", "runtime gpu-numa", "/etc/containerd/conf.d/99-zz-gpu-numa.toml"));
  auto lines = double_registrations(f);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "registered twice: the NRI plugin (connected to containerd v2.1.9) and the gpu-numa runtime "
                    "(/etc/containerd/conf.d/99-zz-gpu-numa.toml) both give containerd's gpu-numa containers the hook; keep "
                    "one: gpu-numa-hook install --runtime containerd --uninstall");
}

TEST_CASE("double registration: a plugin not connected, or files that do not register us, are not counted") {
  StatusFacts f;
  f.engines.push_back(fact("podman/crio (hooks.d)", "hooks.d", kHooksD));
  f.engines.push_back(fact("crio-runtime", "runtime gpu-numa", "/etc/crio/crio.conf.d/10-crun.toml", false));
  f.nri_connected = false;
  f.nri_runtime = "";
  CHECK(double_registrations(f).empty());
  f.engines.push_back(fact("nvidia-legacy", "NVIDIA runtime hook (legacy mode)", "/etc/nvidia-container-runtime/config.toml", false));
  CHECK(double_registrations(f).empty());
}

TEST_CASE("double registration: hooks.d with CRI-O's gpu-numa runtime, and NVIDIA's legacy hook with another") {
  StatusFacts f;
  f.engines.push_back(fact("crio-runtime", "runtime gpu-numa", "/etc/crio/crio.conf.d/99-zz-gpu-numa.toml"));
  f.engines.push_back(fact("podman/crio (hooks.d)", "hooks.d", kHooksD));
  f.engines.push_back(fact("nvidia-legacy", "NVIDIA runtime hook (legacy mode)", "/etc/nvidia-container-runtime/config.toml"));
  auto lines = double_registrations(f);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == std::string("registered twice: hooks.d (") + kHooksD +
                        ") and the gpu-numa runtime (/etc/crio/crio.conf.d/99-zz-gpu-numa.toml) both give CRI-O's gpu-numa "
                        "containers the hook; keep one: gpu-numa-hook install --runtime crio-runtime --uninstall");
  CHECK(lines[1] == "registered twice: nvidia-container-runtime in legacy mode (/etc/nvidia-container-runtime/config.toml) and "
                    "crio-runtime's gpu-numa runtime (/etc/crio/crio.conf.d/99-zz-gpu-numa.toml) both give containers that run "
                    "through NVIDIA's runtime the hook; keep one: gpu-numa-hook install --runtime nvidia-legacy --uninstall");
  CHECK(lines[2].find("and hooks.d (" + std::string(kHooksD) + ")") != std::string::npos);
}
