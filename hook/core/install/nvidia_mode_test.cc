// NVIDIA's runtime mode as install and status judge it, and the in-place edit of NVIDIA's real
// packaged config.toml (tests/fixtures/nvidia-container-toolkit-1.20.0/config.toml).
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "base/error.h"
#include "install/config_edit.h"
#include "install/nvidia_mode.h"
#include "install/toml_text.h"

using namespace gnh;

namespace {

std::string packaged_config() {
  std::ifstream f(std::string(GNH_SOURCE_DIR) + "/tests/fixtures/nvidia-container-toolkit-1.20.0/config.toml");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  REQUIRE(text.find(from, at + 1) == std::string::npos);
  return text.replace(at, from.size(), to);
}

InstallOptions install(bool uninstall = false) {
  InstallOptions o;
  o.uninstall = uninstall;
  return o;
}

}  // namespace

TEST_CASE("nvidia mode: the key's value, NVIDIA's default auto when absent or no file") {
  CHECK(nvidia_runtime_mode("[nvidia-container-runtime]\nmode = \"legacy\"\n", "f").mode == "legacy");
  CHECK(nvidia_runtime_mode("[nvidia-container-runtime]\nmode = \"legacy\"\n", "f").set);
  CHECK(nvidia_runtime_mode("[nvidia-container-runtime]\nmode = \"cdi\"\n", "f").mode == "cdi");
  CHECK(nvidia_runtime_mode("[nvidia-container-runtime]\nlog-level = \"info\"\n", "f").mode == "auto");
  CHECK_FALSE(nvidia_runtime_mode("[nvidia-container-runtime]\nlog-level = \"info\"\n", "f").set);
  CHECK(nvidia_runtime_mode("", "f").mode == "auto");
  CHECK(nvidia_runtime_mode(packaged_config(), "f").mode == "auto");
  CHECK_THROWS_AS(nvidia_runtime_mode("[nvidia-container-runtime\n", "f"), Error);
}

TEST_CASE("nvidia mode: only legacy runs the hook, every other mode is one line naming mode, file and what to do") {
  CHECK(nvidia_mode_never_runs_hook({"legacy", true}, "/etc/n.toml") == "");
  const std::string tail =
      ": in that mode nvidia-container-runtime never runs [nvidia-container-runtime-hook] path, so gpu-numa-hook never runs; "
      "set mode = \"legacy\" there, or register the hook the way that mode runs it: the runtime shim in front of NVIDIA's "
      "runtime (install --runtime docker|containerd|crio-runtime), hooks.d (install --runtime podman|crio), NRI (install "
      "--runtime nri|crio-nri), or, in cdi mode, the createRuntime entry in NVIDIA's CDI spec (docs/runtimes.md)";
  CHECK(nvidia_mode_never_runs_hook({"auto", true}, "/etc/n.toml") ==
        "/etc/n.toml has [nvidia-container-runtime] mode = \"auto\" (auto resolves to jit-cdi, or cdi when every device is a "
        "CDI name)" + tail);
  CHECK(nvidia_mode_never_runs_hook({"auto", false}, "/etc/n.toml") ==
        "/etc/n.toml has no [nvidia-container-runtime] mode (NVIDIA's default, \"auto\", resolves to jit-cdi, or cdi when "
        "every device is a CDI name)" + tail);
  CHECK(nvidia_mode_never_runs_hook({"cdi", true}, "/etc/n.toml") == "/etc/n.toml has [nvidia-container-runtime] mode = \"cdi\"" + tail);
  CHECK(nvidia_mode_never_runs_hook({"jit-cdi", true}, "/etc/n.toml") ==
        "/etc/n.toml has [nvidia-container-runtime] mode = \"jit-cdi\"" + tail);
  CHECK(nvidia_mode_never_runs_hook({"csv", true}, "/etc/n.toml") != "");
}

TEST_CASE("nvidia-legacy: NVIDIA's packaged config.toml edited in place, one line, undone byte for byte") {
  const std::string nv = replaced(packaged_config(), "mode = \"auto\"", "mode = \"legacy\"");
  std::string prev;
  std::string once = edit_nvidia_runtime_config(nv, "n", install(), &prev, "");
  CHECK(prev == "nvidia-container-runtime-hook");
  // the hook table's path line only: [nvidia-ctk] path, the comments and commented defaults stay
  CHECK(once == replaced(nv, "[nvidia-container-runtime-hook]\npath = \"nvidia-container-runtime-hook\"",
                         "[nvidia-container-runtime-hook]\npath = \"/usr/bin/gpu-numa-hook\""));
  CHECK(edit_nvidia_runtime_config(once, "n", install(), &prev, "") == once);
  CHECK(edit_nvidia_runtime_config(once, "n", install(true), nullptr, "nvidia-container-runtime-hook") == nv);
  // uninstall leaves a path that is not ours alone
  CHECK(edit_nvidia_runtime_config(nv, "n", install(true), nullptr, "x") == nv);
}

TEST_CASE("nvidia-legacy: no path line is added to the hook table and removed again, a dotted key is refused") {
  const std::string nv = "# ours\n[nvidia-container-runtime]\nmode = \"legacy\"\n\n[nvidia-container-runtime-hook]\nskip-mode-detection = false\n";
  std::string once = edit_nvidia_runtime_config(nv, "n", install(), nullptr, "");
  CHECK(once == nv + "path = \"/usr/bin/gpu-numa-hook\"\n");
  CHECK(edit_nvidia_runtime_config(once, "n", install(true), nullptr, "") == nv);
  CHECK_THROWS_WITH_AS(edit_nvidia_runtime_config("nvidia-container-runtime-hook.path = \"x\"\n", "n", install(), nullptr, ""),
                       doctest::Contains("is not a plain `path = \"...\"` line install can edit in place, left untouched"), Error);
}

TEST_CASE("our config: [runtime] hook set as text, removed with \"\", read back") {
  const std::string ours = "# top\n[runtime]\n# the hook\nhook = \"/usr/bin/gpu-numa-hook\"\nnext = [\"runc\"]\n";
  std::string set = set_runtime_hook(ours, "/opt/gnh/gpu-numa-hook");
  CHECK(set == "# top\n[runtime]\n# the hook\nhook = \"/opt/gnh/gpu-numa-hook\"\nnext = [\"runc\"]\n");
  CHECK(runtime_hook(set, "c") == "/opt/gnh/gpu-numa-hook");
  CHECK(set_runtime_hook(set, "/usr/bin/gpu-numa-hook") == ours);
  CHECK(set_runtime_hook(ours, "") == "# top\n[runtime]\n# the hook\nnext = [\"runc\"]\n");
  CHECK_FALSE(runtime_hook("[runtime]\n", "c").has_value());
}
