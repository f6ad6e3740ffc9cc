// install's edits on sample files: fresh, existing, broken, second run, uninstall.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "base/error.h"
#include "install/config_edit.h"

using namespace gnh;

namespace {
InstallOptions opts(bool set_default = false, bool uninstall = false) {
  InstallOptions o;
  o.set_default = set_default;
  o.uninstall = uninstall;
  return o;
}
}  // namespace

TEST_CASE("docker daemon.json: fresh, existing keys kept, idempotent, uninstall restores") {
  std::string fresh = edit_docker_daemon_json("", "daemon.json", opts());
  CHECK(nlohmann::json::parse(fresh) == nlohmann::json::parse(R"({"runtimes":{"gpu-numa":{"path":"/usr/bin/gpu-numa-runtime"}}})"));
  const std::string existing =
      "{\n  \"log-driver\": \"journald\",\n  \"runtimes\": {\n    \"nvidia\": {\n      \"path\": \"nvidia-container-runtime\"\n    }\n  },\n  \"data-root\": \"/x\"\n}\n";
  std::string once = edit_docker_daemon_json(existing, "daemon.json", opts(true));
  auto j = nlohmann::ordered_json::parse(once);
  CHECK(j.begin().key() == "log-driver");
  CHECK(j["runtimes"]["nvidia"]["path"] == "nvidia-container-runtime");
  CHECK(j["runtimes"]["gpu-numa"]["path"] == "/usr/bin/gpu-numa-runtime");
  CHECK(j["default-runtime"] == "gpu-numa");
  CHECK(edit_docker_daemon_json(once, "daemon.json", opts(true)) == once);
  std::string back = edit_docker_daemon_json(once, "daemon.json", opts(false, true));
  CHECK(back == existing);
  CHECK(edit_docker_daemon_json(fresh, "daemon.json", opts(false, true)) == "{}\n");
  CHECK_THROWS_WITH_AS(edit_docker_daemon_json("{\n \"a\": ,\n}", "/etc/docker/daemon.json", opts()),
                       doctest::Contains("/etc/docker/daemon.json: cannot parse, left untouched: [json.exception.parse_error.101] parse error at line 2"), Error);
  CHECK_THROWS_AS(edit_docker_daemon_json("[]", "d", opts()), Error);
}

TEST_CASE("containerd config.toml: missing file becomes a version 2 config with our runtime") {
  std::string fresh = edit_containerd_config("", "config.toml", opts(true));
  toml::table t = toml::parse(fresh);
  CHECK(t["version"].value_or(0) == 2);
  auto ctd = t["plugins"]["io.containerd.grpc.v1.cri"]["containerd"];
  CHECK(ctd["runtimes"]["gpu-numa"]["runtime_type"].value_or(std::string()) == "io.containerd.runc.v2");
  CHECK(ctd["runtimes"]["gpu-numa"]["options"]["BinaryName"].value_or(std::string()) == "/usr/bin/gpu-numa-runtime");
  CHECK(ctd["default_runtime_name"].value_or(std::string()) == "gpu-numa");
  CHECK(edit_containerd_config(fresh, "config.toml", opts(true)) == fresh);
  std::string back = edit_containerd_config(fresh, "config.toml", opts(false, true));
  CHECK(toml::parse(back) == toml::parse("version = 2"));
}

TEST_CASE("containerd config.toml: an existing runtimes table keeps its runtimes, version 1 uses plugins.cri") {
  const std::string v2 = R"(version = 2
root = "/var/lib/containerd"
[plugins."io.containerd.grpc.v1.cri".containerd]
  default_runtime_name = "runc"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
  SystemdCgroup = true
)";
  std::string once = edit_containerd_config(v2, "c", opts());
  toml::table t = toml::parse(once);
  auto ctd = t["plugins"]["io.containerd.grpc.v1.cri"]["containerd"];
  CHECK(ctd["runtimes"]["runc"]["options"]["SystemdCgroup"].value_or(false));
  CHECK(ctd["runtimes"]["gpu-numa"]["options"]["BinaryName"].value_or(std::string()) == "/usr/bin/gpu-numa-runtime");
  CHECK(ctd["default_runtime_name"].value_or(std::string()) == "runc");
  CHECK(t["root"].value_or(std::string()) == "/var/lib/containerd");
  CHECK(edit_containerd_config(once, "c", opts()) == once);
  CHECK(toml::parse(edit_containerd_config(once, "c", opts(false, true))) == toml::parse(v2));

  std::string v1 = edit_containerd_config("[plugins.cri.containerd]\nsnapshotter = \"overlayfs\"\n", "c", opts());
  CHECK(toml::parse(v1)["plugins"]["cri"]["containerd"]["runtimes"]["gpu-numa"]["runtime_type"].value_or(std::string()) ==
        "io.containerd.runc.v2");
  CHECK_THROWS_WITH_AS(edit_containerd_config("version = 2\n[plugins\n", "/etc/containerd/config.toml", opts()),
                       doctest::Contains("/etc/containerd/config.toml: line 2"), Error);
  CHECK_THROWS_AS(edit_containerd_config("plugins = 3\n", "c", opts()), Error);
}

TEST_CASE("hooks.d file: the shipped registration with our path, nothing on uninstall") {
  auto j = nlohmann::json::parse(hooks_d_file_text(opts()));
  CHECK(j["hook"]["path"] == "/usr/bin/gpu-numa-hook");
  CHECK(j["when"]["always"] == true);
  CHECK(j["stages"] == nlohmann::json({"prestart"}));
  CHECK(hooks_d_file_text(opts(false, true)).empty());
}

TEST_CASE("nvidia-legacy: NVIDIA's hook path points at ours, the old path is returned and restored") {
  const std::string nv = "[nvidia-container-runtime]\nmode = \"legacy\"\n\n[nvidia-container-runtime-hook]\npath = \"nvidia-container-runtime-hook\"\nskip-mode-detection = true\n";
  std::string prev;
  std::string once = edit_nvidia_runtime_config(nv, "n", opts(), &prev, "");
  CHECK(prev == "nvidia-container-runtime-hook");
  toml::table t = toml::parse(once);
  CHECK(t["nvidia-container-runtime-hook"]["path"].value_or(std::string()) == "/usr/bin/gpu-numa-hook");
  CHECK(t["nvidia-container-runtime-hook"]["skip-mode-detection"].value_or(false));
  CHECK(edit_nvidia_runtime_config(once, "n", opts(), &prev, "") == once);
  std::string back = edit_nvidia_runtime_config(once, "n", opts(false, true), nullptr, "nvidia-container-runtime-hook");
  CHECK(toml::parse(back) == toml::parse(nv));
}

TEST_CASE("our config: [chain] next-hook set and cleared as text, comments kept") {
  const std::string ours = "# top\n[policy]\nmissing-node = \"patch\"\n\n[chain]\n# the next hook\nnext-hook = \"\"\ntimeout-ms = 30000\n";
  std::string set = set_chain_next_hook(ours, "/usr/bin/nvidia-container-runtime-hook");
  CHECK(set == "# top\n[policy]\nmissing-node = \"patch\"\n\n[chain]\n# the next hook\nnext-hook = \"/usr/bin/nvidia-container-runtime-hook\"\ntimeout-ms = 30000\n");
  CHECK(chain_next_hook(set, "c") == "/usr/bin/nvidia-container-runtime-hook");
  CHECK(set_chain_next_hook(set, "") == ours);
  CHECK(set_chain_next_hook("[log]\nlevel = \"info\"\n", "/n") == "[log]\nlevel = \"info\"\n\n[chain]\nnext-hook = \"/n\"\n");
  CHECK(set_chain_next_hook("[chain]\ntimeout-ms = 1\n[log]\n", "/n") == "[chain]\ntimeout-ms = 1\nnext-hook = \"/n\"\n[log]\n");
}

TEST_CASE("unified diff: hunks with context, empty when equal") {
  CHECK(unified_diff("a\nb\n", "a\nb\n", "x", "y").empty());
  std::string d = unified_diff("1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nfive\n6\n7\n8\n", "old", "new");
  CHECK(d == "--- old\n+++ new\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
  CHECK(unified_diff("", "a\n", "old", "new") == "--- old\n+++ new\n@@ -0,0 +1,1 @@\n+a\n");
}
