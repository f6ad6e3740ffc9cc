// install's edits on sample files: fresh, existing, broken, second run, uninstall.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "base/error.h"
#include "install/config_edit.h"
#include "install/containerd_config.h"
#include "install/crio_config.h"
#include "install/docker_config.h"
#include "install/engine_config.h"
#include "install/test_files.h"

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

TEST_CASE("containerd, edited in place (version 1 files): runtimes kept, version 1 uses plugins.cri") {
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

// install --runtime crio --hook-path X, then --uninstall without it (or --uninstall --all): the
// file must still be recognised as ours (seen left behind by tests/crio/run-crio-tests.sh).
TEST_CASE("hooks.d file: ours whatever hook path install wrote, an edited one is not") {
  InstallOptions o = opts();
  o.hook_path = "/opt/gnh/bin/gpu-numa-hook";
  const std::string ours = hooks_d_file_text(o);
  CHECK(is_our_hooks_d_file(ours));
  CHECK(is_our_hooks_d_file(hooks_d_file_text(opts())));
  std::string edited = ours;
  edited.replace(edited.find("\"always\": true"), 14, "\"always\": false");
  CHECK(!is_our_hooks_d_file(edited));
  CHECK(!is_our_hooks_d_file(ours + " "));
  CHECK(!is_our_hooks_d_file("{"));
  CHECK(!is_our_hooks_d_file("[]"));
  CHECK(!is_our_hooks_d_file(R"({"hook": {"path": 3}})"));
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

// A GPU operator node (issue 19): nvidia is the default runtime, runc carries SystemdCgroup.
const std::string kOperatorV2 = gpu_operator_containerd_v2();

TEST_CASE("containerd, GPU operator layout: ours copies runc (not nvidia), SystemdCgroup kept, NVIDIA's binary seen") {
  EngineRuntimes seen;
  std::string once = edit_containerd_config(kOperatorV2, "c", opts(), &seen);
  CHECK(seen.default_runtime == "nvidia");
  CHECK(seen.base_runtime == "runc");
  CHECK(seen.nvidia_binary == "/usr/local/nvidia/toolkit/nvidia-container-runtime");
  toml::table t = toml::parse(once);
  auto ours = t["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]["gpu-numa"];
  CHECK(ours["options"]["SystemdCgroup"].value_or(false));
  CHECK(ours["options"]["BinaryName"].value_or(std::string()) == "/usr/bin/gpu-numa-runtime");
  CHECK(ours["runtime_type"].value_or(std::string()) == "io.containerd.runc.v2");
  CHECK(t["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["default_runtime_name"].value_or(std::string()) == "nvidia");
  // --set-default, then uninstall with the recorded previous default: nvidia comes back
  std::string def = edit_containerd_config(kOperatorV2, "c", opts(true));
  InstallOptions u = opts(false, true);
  u.restore_default = "nvidia";
  CHECK(toml::parse(edit_containerd_config(def, "c", u)) == toml::parse(kOperatorV2));
  u.restore_default = "";
  CHECK(toml::parse(edit_containerd_config(def, "c", u))["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["default_runtime_name"]
            .value_or(std::string("absent")) == "absent");
}

TEST_CASE("containerd: the CRI plugin key follows the config version (1, 2, 3 and later)") {
  CHECK(containerd_cri_plugin(1) == "cri");
  CHECK(containerd_cri_plugin(2) == "io.containerd.grpc.v1.cri");
  CHECK(containerd_cri_plugin(3) == "io.containerd.cri.v1.runtime");
  CHECK(containerd_cri_plugin(4) == "io.containerd.cri.v1.runtime");
  const std::string v3 = "version = 3\n[plugins.'io.containerd.cri.v1.runtime'.containerd]\n  default_runtime_name = \"crun\"\n"
                         "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.crun]\n  runtime_type = \"io.containerd.runc.v2\"\n"
                         "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.crun.options]\n  BinaryName = \"/usr/bin/crun\"\n";
  EngineRuntimes seen;
  toml::table t = toml::parse(edit_containerd_config(v3, "c", opts(), &seen));
  CHECK(seen.base_runtime == "crun");
  CHECK(seen.nvidia_binary == "");
  CHECK(t["plugins"]["io.containerd.cri.v1.runtime"]["containerd"]["runtimes"]["gpu-numa"]["options"]["BinaryName"].value_or(std::string()) ==
        "/usr/bin/gpu-numa-runtime");
  CHECK(!t["plugins"]["io.containerd.grpc.v1.cri"]);
  CHECK(containerd_file_version(v3, "c") == 3);
  CHECK(containerd_file_version("[plugins.cri]\n", "c") == 0);
  CHECK(containerd_file_version("", "c") == 0);
}

TEST_CASE("containerd: which files define the CRI plugin (nvidia-ctk's drop-in does)") {
  CHECK(containerd_defines_cri(kOperatorV2, "d"));
  CHECK(containerd_defines_cri("[plugins.cri.registry]\n", "d"));
  CHECK(containerd_defines_cri("version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\n", "d"));
  CHECK(!containerd_defines_cri("version = 2\n[grpc]\naddress = \"/s\"\n", "d"));
}

TEST_CASE("docker: nvidia as default-runtime is seen, and uninstall puts the recorded default back") {
  const std::string operator_json = "{\n  \"default-runtime\": \"nvidia\",\n  \"runtimes\": {\n    \"nvidia\": {\n      \"args\": [],\n"
                                    "      \"path\": \"nvidia-container-runtime\"\n    }\n  }\n}\n";
  EngineRuntimes seen;
  std::string def = edit_docker_daemon_json(operator_json, "d", opts(true), &seen);
  CHECK(seen.default_runtime == "nvidia");
  CHECK(seen.nvidia_binary == "nvidia-container-runtime");
  CHECK(nlohmann::json::parse(def)["default-runtime"] == "gpu-numa");
  InstallOptions u = opts(false, true);
  u.restore_default = "nvidia";
  CHECK(edit_docker_daemon_json(def, "d", u) == operator_json);
  EngineRuntimes none;
  edit_docker_daemon_json("{\"runtimes\": {\"runc2\": {\"path\": \"/usr/bin/runc\"}}}", "d", opts(), &none);
  CHECK(none.nvidia_binary == "");
  CHECK(is_nvidia_runtime("nvidia-cdi", ""));
  CHECK(is_nvidia_runtime("gpu", "/usr/bin/nvidia-container-runtime.cdi"));
  CHECK(!is_nvidia_runtime("runc", "/usr/bin/runc"));
}

TEST_CASE("our config's [runtime] next: replaced in place (one line or several), added when missing, comments kept") {
  const std::string shipped = "# top\n[runtime]\n# which runtime\nnext = [\"runc\", \"crun\"]\nhook = \"/usr/bin/gpu-numa-hook\"\n";
  const std::vector<std::string> chained = {"/usr/local/nvidia/toolkit/nvidia-container-runtime", "runc", "crun"};
  std::string out = set_runtime_next(shipped, chained);
  CHECK(out == "# top\n[runtime]\n# which runtime\nnext = [\"/usr/local/nvidia/toolkit/nvidia-container-runtime\", \"runc\", \"crun\"]\n"
               "hook = \"/usr/bin/gpu-numa-hook\"\n");
  CHECK(runtime_next(out, "f") == chained);
  CHECK(set_runtime_next(out, {"runc", "crun"}) == shipped);
  const std::string multi = "[runtime]\nnext = [\n  \"runc\",\n  \"crun\",\n]\nhook = \"/h\"\n";
  CHECK(set_runtime_next(multi, {"a"}) == "[runtime]\nnext = [\"a\"]\nhook = \"/h\"\n");
  CHECK(set_runtime_next("[log]\nlevel = \"info\"\n", {"a"}) == "[log]\nlevel = \"info\"\n\n[runtime]\nnext = [\"a\"]\n");
  CHECK(set_runtime_next("[runtime]\nhook = \"/h\"\n[log]\n", {"a"}) == "[runtime]\nhook = \"/h\"\nnext = [\"a\"]\n[log]\n");
  CHECK(runtime_next("[log]\n", "f").empty());
}

TEST_CASE("CRI-O runtime drop-in: a copy of the default runtime, the shim as runtime_path, NVIDIA's seen, later files win") {
  const std::string crio_conf = "[crio.runtime]\ndefault_runtime = \"crun\"\n[crio.runtime.runtimes.crun]\n"
                                "runtime_path = \"/usr/bin/crun\"\nruntime_root = \"/run/crun\"\nmonitor_path = \"/usr/libexec/crio/conmon\"\n"
                                "allowed_annotations = [\"io.containers.trace-syscall\"]\n";
  const std::string nvidia_dropin = "[crio.runtime]\ndefault_runtime = \"nvidia\"\n[crio.runtime.runtimes.nvidia]\n"
                                    "runtime_path = \"/usr/bin/nvidia-container-runtime\"\nruntime_type = \"oci\"\n";
  EngineRuntimes seen;
  std::string text = crio_runtime_dropin({{"crio.conf", crio_conf}, {"99-nvidia.toml", nvidia_dropin}}, opts(), &seen);
  CHECK(seen.default_runtime == "nvidia");
  CHECK(seen.base_runtime == "crun");
  CHECK(seen.nvidia_binary == "/usr/bin/nvidia-container-runtime");
  toml::table t = toml::parse(text);
  auto ours = t["crio"]["runtime"]["runtimes"]["gpu-numa"];
  CHECK(ours["runtime_path"].value_or(std::string()) == "/usr/bin/gpu-numa-runtime");
  CHECK(ours["runtime_type"].value_or(std::string()) == "oci");
  CHECK(ours["runtime_root"].value_or(std::string()) == "/run/crun");
  CHECK(ours["monitor_path"].value_or(std::string()) == "/usr/libexec/crio/conmon");
  CHECK(ours["allowed_annotations"][0].value_or(std::string()) == "io.containers.trace-syscall");
  CHECK(!t["crio"]["runtime"]["default_runtime"]);
  CHECK(toml::parse(crio_runtime_dropin({{"crio.conf", crio_conf}}, opts(true)))["crio"]["runtime"]["default_runtime"].value_or(std::string()) ==
        "gpu-numa");
  CHECK(crio_runtime_dropin({{"crio.conf", crio_conf}}, opts(false, true)) == "");
  CHECK_THROWS_WITH_AS(crio_runtime_dropin({{"/etc/crio/crio.conf", "[crio\n"}}, opts()), doctest::Contains("/etc/crio/crio.conf: line 1"), Error);
}

TEST_CASE("docker engine: install records the displaced default, --set-default kept on a re-run, uninstall restores it, a stale record is ignored") {
  Files fs;
  const std::string nvidia_json = "{\n  \"default-runtime\": \"nvidia\",\n  \"runtimes\": {\n    \"nvidia\": {\n      \"args\": [],\n"
                                  "      \"path\": \"nvidia-container-runtime\"\n    }\n  }\n}\n";
  fs.f["/d.json"] = nvidia_json;
  EngineEdit e = docker_config("/d.json", fs)->add_runtime(opts(true), std::nullopt);
  CHECK(e.record.previous_default == "nvidia");
  CHECK(e.record.set_default);
  CHECK(e.runtimes.nvidia_binary == "nvidia-container-runtime");
  fs.apply(e);
  // a plain re-run keeps the earlier --set-default: nothing changes
  EngineEdit again = docker_config("/d.json", fs)->add_runtime(opts(), e.record);
  CHECK(again.changes[0].after == again.changes[0].before);
  CHECK(again.record.previous_default == "nvidia");
  // another tool takes the default after install (nvidia-ctk --set-as-default): a re-run takes it
  // back and records that default as the one to give back
  nlohmann::json taken = nlohmann::json::parse(fs.f["/d.json"]);
  taken["default-runtime"] = "nvidia-cdi";
  fs.f["/d.json"] = taken.dump(2) + "\n";
  EngineEdit retaken = docker_config("/d.json", fs)->add_runtime(opts(), e.record);
  CHECK(nlohmann::json::parse(*retaken.changes[0].after)["default-runtime"] == "gpu-numa");
  CHECK(retaken.record.previous_default == "nvidia-cdi");
  fs.apply(retaken);
  fs.apply(docker_config("/d.json", fs)->remove_runtime(opts(false, true), retaken.record));
  CHECK(nlohmann::json::parse(fs.f["/d.json"])["default-runtime"] == "nvidia-cdi");
  fs.f["/d.json"] = nvidia_json;
  fs.apply(e);
  fs.apply(docker_config("/d.json", fs)->remove_runtime(opts(false, true), e.record));
  CHECK(fs.f["/d.json"] == nvidia_json);
  // a record left by an install whose file was replaced since: not followed
  InstallRecord stale;
  stale.previous_default = "";
  stale.set_default = true;
  EngineEdit fresh = docker_config("/d.json", fs)->add_runtime(opts(), stale);
  CHECK(fresh.record.previous_default == "nvidia");
  CHECK(!fresh.record.set_default);
  CHECK(nlohmann::json::parse(*fresh.changes[0].after)["default-runtime"] == "nvidia");
  // a file install created goes again on uninstall
  Files none;
  EngineEdit created = docker_config("/n.json", none)->add_runtime(opts(), std::nullopt);
  CHECK(created.record.created_config);
  none.apply(created);
  none.apply(docker_config("/n.json", none)->remove_runtime(opts(false, true), created.record));
  CHECK(none.f.empty());
}

// CRI-O reads every file in crio.conf.d, not only *.toml (seen with the real `crio config`):
// OpenShift's machine config puts default_runtime and the runtimes in crio.conf.d/00-default,
// without a suffix. Read as *.toml only, that file was missed and our runtime copied nothing.
TEST_CASE("CRI-O engine: every file in crio.conf.d counts, in CRI-O's order (OpenShift's 00-default has no suffix)") {
  Files fs;
  const std::string d = "/etc/crio/crio.conf.d";
  fs.f[d + "/00-default"] = "[crio.runtime]\ndefault_runtime = \"crun\"\n[crio.runtime.runtimes.crun]\nruntime_path = \"/usr/bin/crun\"\n"
                            "runtime_root = \"/run/crun\"\nmonitor_path = \"/usr/libexec/crio/conmon\"\n";
  fs.f[d + "/.tuning"] = "[crio.runtime.runtimes.crun]\nruntime_root = \"/run/crun-hidden\"\n";  // read first: '.' sorts before '0'
  fs.f[d + "/10-root.conf"] = "[crio.runtime.runtimes.crun]\nruntime_root = \"/run/crun-10\"\n";
  CHECK(crio_dropin_files(fs, d) == std::vector<std::string>{d + "/.tuning", d + "/00-default", d + "/10-root.conf"});
  EngineEdit e = crio_config(d, fs)->add_runtime(opts(), std::nullopt);
  CHECK(e.runtimes.default_runtime == "crun");
  CHECK(e.runtimes.base_runtime == "crun");
  REQUIRE(e.changes.size() == 1);
  toml::table t = toml::parse(*e.changes[0].after);
  CHECK(t["crio"]["runtime"]["runtimes"]["gpu-numa"]["runtime_root"].value_or(std::string()) == "/run/crun-10");
  // A later file's table replaces the runtime's whole table, as CRI-O has it (its `crio config`
  // prints runtime_path = "" and monitor_path = "" for these files): nothing of 00-default's is kept.
  CHECK(!t["crio"]["runtime"]["runtimes"]["gpu-numa"]["monitor_path"]);
  // our own drop-in is never its own base, whatever else is in the directory
  fs.apply(e);
  CHECK(crio_config(d, fs)->add_runtime(opts(), e.record).changes[0].after == e.changes[0].after);
}

TEST_CASE("CRI-O engine: crio.conf then crio.conf.d in order, our drop-in a copy of the default, removed on uninstall") {
  Files fs;
  fs.f["/etc/crio/crio.conf"] = "[crio.runtime]\ndefault_runtime = \"runc\"\n[crio.runtime.runtimes.runc]\nruntime_path = \"/usr/bin/runc\"\n";
  fs.f["/etc/crio/crio.conf.d/10-crun.toml"] =
      "[crio.runtime]\ndefault_runtime = \"crun\"\n[crio.runtime.runtimes.crun]\nruntime_path = \"/usr/bin/crun\"\nruntime_root = \"/run/crun\"\n";
  EngineEdit e = crio_config("/etc/crio/crio.conf.d", fs)->add_runtime(opts(), std::nullopt);
  CHECK(e.runtimes.default_runtime == "crun");
  CHECK(e.runtimes.base_runtime == "crun");
  REQUIRE(e.changes.size() == 1);
  CHECK(e.changes[0].path == "/etc/crio/crio.conf.d/99-zz-gpu-numa.toml");
  CHECK(e.changes[0].dropin);
  toml::table t = toml::parse(*e.changes[0].after);
  CHECK(t["crio"]["runtime"]["runtimes"]["gpu-numa"]["runtime_root"].value_or(std::string()) == "/run/crun");
  CHECK(t["crio"]["runtime"]["runtimes"]["gpu-numa"]["runtime_path"].value_or(std::string()) == "/usr/bin/gpu-numa-runtime");
  fs.apply(e);
  EngineEdit un = crio_config("/etc/crio/crio.conf.d", fs)->remove_runtime(opts(false, true), e.record);
  REQUIRE(un.changes.size() == 1);
  CHECK(!un.changes[0].after);
}
