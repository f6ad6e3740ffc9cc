// status's judgement and wording on hand-made facts; the registrations read from engines' texts.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "status/node_status.h"
#include "status/registration.h"

using namespace gnh;

namespace {

StatusFacts protected_node() {
  StatusFacts f;
  EngineFact docker{"docker", "runtime gpu-numa", "/etc/docker/daemon.json", true, true, "", {}};
  docker.binaries.push_back({"shim", "/usr/bin/gpu-numa-runtime", true, true});
  f.engines.push_back(docker);
  f.config_path = "/etc/gpu-numa-hook/config.toml";
  f.gpus_read = true;
  f.gpus.push_back({"/dev/nvidia0", "0009:01:00.0", 1, GpuMemoryState::usable});
  f.cgroups_read = true;
  f.cgroups_walked = 12;
  f.log_path = "/var/log/gpu-numa-hook.log";
  f.timer_unit_installed = true;
  f.timer_enabled = true;
  f.containers.read = true;  // the runtimes' records read: no GPU container without the hook
  return f;
}

}  // namespace

TEST_CASE("status: a registered default runtime, a valid config, usable GPU memory, no stale cgroup: protected") {
  StatusFacts f = protected_node();
  StatusVerdict v = judge_status(f);
  CHECK(v.exit_code() == 0);
  CHECK(v.notes.empty());
  std::string t = status_text(f, v);
  CHECK(t.rfind("gpu-numa-hook status: protected\n", 0) == 0);
  CHECK(t.find("  docker: runtime gpu-numa, the default, in /etc/docker/daemon.json\n    shim /usr/bin/gpu-numa-runtime: ok\n") !=
        std::string::npos);
  CHECK(t.find("  nri: not installed\n") != std::string::npos);
  auto j = nlohmann::json::parse(status_json(f, v));
  CHECK(j["schema_version"] == 1);
  CHECK(j["verdict"] == "protected");
  CHECK(j["nri"]["installed"] == false);
  CHECK(j["engines"][0]["default"] == true);
}

TEST_CASE("status: each reason not to be protected is its own line, exit 1") {
  StatusFacts f = protected_node();
  f.engines[0].binaries[0].exists = false;
  f.config_error = "line 3: unknown key bogus";
  f.gpus.push_back({"/dev/nvidia1", "0019:01:00.0", 9, GpuMemoryState::offline});
  f.stale_cgroups = {"/docker", "/docker/abc"};
  StatusVerdict v = judge_status(f);
  CHECK(v.exit_code() == 1);
  REQUIRE(v.not_protected.size() == 4);
  CHECK(v.not_protected[0].rfind("docker: the shim /usr/bin/gpu-numa-runtime named by /etc/docker/daemon.json does not exist", 0) == 0);
  CHECK(v.not_protected[1].rfind("config /etc/gpu-numa-hook/config.toml: line 3: unknown key bogus", 0) == 0);
  CHECK(v.not_protected[2].rfind("GPU /dev/nvidia1 (0019:01:00.0): memory node 9 is offline", 0) == 0);
  CHECK(v.not_protected[3].rfind("2 cgroup(s) lack memory nodes their parents have (first: /docker)", 0) == 0);
  CHECK(status_text(f, v).find("\nnot protected: 2 cgroup(s)") != std::string::npos);
  CHECK(nlohmann::json::parse(status_json(f, v))["verdict"] == "not_protected");
}

TEST_CASE("status: nothing registered is not protected, unreadable facts alone are cannot tell (exit 2)") {
  StatusFacts f = protected_node();
  f.engines.clear();
  StatusVerdict v = judge_status(f);
  CHECK(v.exit_code() == 1);
  CHECK(v.not_protected.at(0).rfind("no container engine runs gpu-numa-hook", 0) == 0);
  StatusFacts g = protected_node();
  g.cgroups_read = false;
  g.cgroups_error = "no cpuset hierarchy mounted";
  StatusVerdict w = judge_status(g);
  CHECK(w.exit_code() == 2);
  CHECK(std::string(w.word()) == "cannot tell");
  CHECK(w.unknown == std::vector<std::string>{"cgroups: no cpuset hierarchy mounted"});
}

TEST_CASE("status: nvidia-legacy registered while NVIDIA's mode is not legacy is not protected, one line, no double") {
  StatusFacts f = protected_node();
  f.engines.clear();
  EngineFact legacy{"nvidia-legacy", "NVIDIA runtime hook (legacy mode)", "/etc/nvidia-container-runtime/config.toml", true,
                    false, "", {}};
  legacy.binaries.push_back({"hook", "/usr/bin/gpu-numa-hook", true, true});
  f.engines.push_back(legacy);
  CHECK(judge_status(f).exit_code() == 0);  // legacy mode: it runs
  f.engines[0].never_runs = "/etc/nvidia-container-runtime/config.toml has [nvidia-container-runtime] mode = \"cdi\": ...";
  StatusVerdict v = judge_status(f);
  CHECK(v.exit_code() == 1);
  CHECK(v.not_protected == std::vector<std::string>{
                               "nvidia-legacy: /etc/nvidia-container-runtime/config.toml has [nvidia-container-runtime] mode = \"cdi\": ..."});
  // beside the docker shim it is not a second registration: in that mode it never runs
  StatusFacts g = protected_node();
  g.engines.push_back(f.engines[0]);
  StatusVerdict w = judge_status(g);
  CHECK(w.exit_code() == 1);
  for (const std::string& n : w.notes) CHECK(n.find("registered twice") == std::string::npos);
}

TEST_CASE("status: a runtime that is not the default, a disabled timer, a Grace GPU not yet initialized are notes") {
  StatusFacts f = protected_node();
  f.engines[0].is_default = false;
  f.timer_enabled = false;
  f.gpus[0].state = GpuMemoryState::not_initialized;
  StatusVerdict v = judge_status(f);
  CHECK(v.exit_code() == 0);
  CHECK(v.notes.size() == 3);
  CHECK(status_text(f, v).find("runtime gpu-numa, not the default, in") != std::string::npos);
}

TEST_CASE("status: a default runtime install set, changed behind its back (nvidia-ctk --set-as-default), is not protected") {
  StatusFacts f = protected_node();
  f.engines[0].is_default = false;
  f.engines[0].installed_as_default = true;
  f.engines[0].default_name = "nvidia";
  StatusVerdict v = judge_status(f);
  CHECK(v.exit_code() == 1);
  REQUIRE(v.not_protected.size() == 1);
  CHECK(v.not_protected[0] ==
        "docker: install made gpu-numa the default runtime, but /etc/docker/daemon.json now makes 'nvidia' the default "
        "(nvidia-ctk runtime configure --set-as-default does this): containers that do not ask for gpu-numa start "
        "without the hook (run gpu-numa-hook install --runtime docker --set-default again: it runs that runtime after "
        "the shim)");
  for (const std::string& n : v.notes) CHECK(n.find("not the default runtime") == std::string::npos);
  // default-runtime removed: the engine's own runtime is the default again
  f.engines[0].default_name = "";
  CHECK(judge_status(f).not_protected.at(0).find("now makes the engine's own runtime the default") != std::string::npos);
  // never made the default by install: a note, as before
  f.engines[0].installed_as_default = false;
  CHECK(judge_status(f).exit_code() == 0);
}

TEST_CASE("status: refusals from a log tail, text and JSON lines, a forged one in a quoted value ignored") {
  const std::string tail =
      "ial line action=refuse \n"
      "2026-11-21T04:30:00.000001Z info gpu-numa-hook[1] container=a stage=prestart action=allow gpus=- msg=\"ok\"\n"
      "2026-11-21T04:30:01.000001Z error gpu-numa-hook[2] container=b stage=prestart action=refuse gpus=/dev/nvidia0 msg=\"node 1 offline\"\n"
      "2026-11-21T04:30:02.000001Z info gpu-numa-hook[3] container=\"x action=refuse y\" stage=prestart action=allow msg=\"action=refuse\"\n"
      "{\"ts\":\"t\",\"container\":\"c\",\"action\":\"refuse\",\"msg\":\"m\"}\n"
      "{\"ts\":\"t\",\"container\":\"d\",\"action\":\"allow\",\"msg\":\"\\\"action\\\":\\\"refuse\\\"\"}\n"
      "2026-11-21T04:30:03.000001Z error gpu-numa-hook[4] container=e stage=prestart action=refuse msg=\"x\"";
  auto all = refusal_lines(tail, false, 10);
  REQUIRE(all.size() == 3);
  CHECK(all[0].find("container=b ") != std::string::npos);
  CHECK(all[1].find("\"container\":\"c\"") != std::string::npos);
  CHECK(all[2].find("container=e ") != std::string::npos);
  auto last = refusal_lines(tail, false, 1);
  CHECK(last == std::vector<std::string>{all[2]});
  CHECK(refusal_lines("a action=refuse b\n", true, 5).size() == 1);
}

TEST_CASE("registrations: docker's daemon.json, containerd and CRI-O TOML, hooks.d, nvidia-legacy") {
  auto d = docker_registration(R"({"default-runtime":"gpu-numa","runtimes":{"gpu-numa":{"path":"/usr/bin/gpu-numa-runtime"}}})", "dj");
  REQUIRE(d);
  CHECK(d->binary == "/usr/bin/gpu-numa-runtime");
  CHECK(d->is_default);
  // nvidia-ctk runtime configure --set-as-default after install: registered, the default is NVIDIA's
  auto nv = docker_registration(
      R"({"default-runtime":"nvidia","runtimes":{"gpu-numa":{"path":"/usr/bin/gpu-numa-runtime"},"nvidia":{"args":[],"path":"nvidia-container-runtime"}}})",
      "dj");
  REQUIRE(nv);
  CHECK_FALSE(nv->is_default);
  CHECK(nv->default_name == "nvidia");
  CHECK_FALSE(docker_registration(R"({"runtimes":{"nvidia":{"path":"x"}}})", "dj"));
  CHECK_THROWS_WITH_AS(docker_registration("{", "/etc/docker/daemon.json"), doctest::Contains("/etc/docker/daemon.json: cannot parse"), Error);
  auto c = toml_runtime_registration(R"(version = 2
[plugins."io.containerd.grpc.v1.cri".containerd]
  default_runtime_name = "gpu-numa"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.gpu-numa]
  runtime_type = "io.containerd.runc.v2"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.gpu-numa.options]
  BinaryName = "/usr/bin/gpu-numa-runtime"
)", "c");
  REQUIRE(c);
  CHECK(c->binary == "/usr/bin/gpu-numa-runtime");
  CHECK(c->is_default);
  auto crio = toml_runtime_registration("[crio.runtime.runtimes.gpu-numa]\nruntime_path = \"/opt/gpu-numa-runtime\"\n", "x");
  REQUIRE(crio);
  CHECK(crio->binary == "/opt/gpu-numa-runtime");
  CHECK_FALSE(crio->is_default);
  CHECK(crio->default_name.empty());
  auto crio_nv = toml_runtime_registration(
      "[crio.runtime]\ndefault_runtime = \"nvidia\"\n[crio.runtime.runtimes.gpu-numa]\nruntime_path = \"/x\"\n", "x");
  REQUIRE(crio_nv);
  CHECK(crio_nv->default_name == "nvidia");
  CHECK_FALSE(toml_runtime_registration("[crio.runtime.runtimes.runc]\n", "x"));
  auto h = hooks_d_registration(R"({"version":"1.0.0","hook":{"path":"/usr/bin/gpu-numa-hook","args":["gpu-numa-hook","prestart"]}})", "h");
  REQUIRE(h);
  CHECK(h->binary == "/usr/bin/gpu-numa-hook");
  CHECK_FALSE(hooks_d_registration(R"({"hook":{"path":"/usr/bin/nvidia-container-toolkit"}})", "h"));
  auto n = nvidia_legacy_registration("[nvidia-container-runtime-hook]\npath = \"/usr/bin/gpu-numa-hook\"\n", "n");
  REQUIRE(n);
  CHECK(n->binary == "/usr/bin/gpu-numa-hook");
  CHECK_FALSE(nvidia_legacy_registration("[nvidia-container-runtime-hook]\npath = \"nvidia-container-runtime-hook\"\n", "n"));
}

TEST_CASE("status: a refusal line with invalid UTF-8 still makes valid JSON") {
  StatusFacts f = protected_node();
  f.refusals = {"2026-11-21T04:30:01Z error gpu-numa-hook[2] container=\xff\xfe action=refuse msg=\"x\""};
  auto j = nlohmann::json::parse(status_json(f, judge_status(f)));
  CHECK(j["refusals"]["lines"].size() == 1);
}

TEST_CASE("status: a connected NRI plugin alone protects the node, one that is gone is a reason not to be") {
  StatusFacts f = protected_node();
  f.engines.clear();
  f.nri = "connected to containerd 2.1.9";
  f.nri_connected = true;
  StatusVerdict v = judge_status(f);
  CHECK(v.exit_code() == 0);
  CHECK(status_text(f, v).find("  nri: connected to containerd 2.1.9\n") != std::string::npos);
  auto j = nlohmann::json::parse(status_json(f, v));
  CHECK(j["nri"]["connected"] == true);
  CHECK(j["nri"]["problem"].is_null());

  StatusFacts g = protected_node();  // docker registered too: the NRI node's pods are still exposed
  g.nri = "not connected";
  g.nri_problem = "NRI plugin not connected: process 4242 is gone";
  StatusVerdict w = judge_status(g);
  CHECK(w.exit_code() == 1);
  REQUIRE(w.not_protected.size() == 1);
  CHECK(w.not_protected[0] ==
        "NRI plugin not connected: process 4242 is gone: GPU pods start without the hook (start gpu-numa-nri; docs/nri.md)");
  CHECK(nlohmann::json::parse(status_json(g, w))["nri"]["problem"] == "NRI plugin not connected: process 4242 is gone");
}

TEST_CASE("status: a connected NRI plugin whose hook is missing leaves the node unprotected") {
  StatusFacts f = protected_node();
  f.engines.clear();
  f.nri = "connected to containerd 2.1.9";
  f.nri_connected = true;
  f.nri_hook_problem = "NRI plugin injects no hook: /opt/gpu-numa-hook/bin/gpu-numa-hook is not usable on this node (x)";
  StatusVerdict v = judge_status(f);
  CHECK(v.exit_code() == 1);
  REQUIRE(v.not_protected.size() == 1);
  CHECK(v.not_protected[0] == f.nri_hook_problem);
  auto j = nlohmann::json::parse(status_json(f, v));
  CHECK(j["nri"]["connected"] == true);
  CHECK(j["nri"]["hook_problem"] == f.nri_hook_problem);
}

TEST_CASE("status: an NRI plugin the runtime keeps dropping is not protecting, whatever the file's instant says") {
  StatusFacts f = protected_node();
  f.engines.clear();
  f.nri = "connected to containerd 2.1.9, not counted as protecting (see below) (40 registrations, 40 drops since it started)";
  f.nri_connected = false;
  f.nri_problem = "NRI plugin keeps being dropped: the runtime ended its connection 40 times in the last 10 min";
  StatusVerdict v = judge_status(f);
  CHECK(v.exit_code() == 1);
  CHECK(std::string(v.word()) == "not protected");
  REQUIRE(v.not_protected.size() == 2);  // and no engine runs the hook otherwise
  CHECK(v.not_protected[0] ==
        "NRI plugin keeps being dropped: the runtime ended its connection 40 times in the last 10 min: GPU pods start "
        "without the hook (gpu-numa-nri's log; docs/nri.md)");
}

TEST_CASE("status: what containerd's NRI validator would refuse, where the plugin runs") {
  StatusFacts f = protected_node();
  f.engines.clear();
  f.nri = "connected to containerd 2.2.0";
  f.nri_connected = true;
  f.nri_validator_rejects_hooks = true;
  f.nri_requires_us = true;
  f.nri_validator_file = "/etc/containerd/config.toml";
  StatusVerdict v = judge_status(f);
  CHECK(v.exit_code() == 1);
  REQUIRE(v.not_protected.size() == 1);
  CHECK(v.not_protected[0] ==
        "containerd's NRI default validator rejects OCI hook adjustments (/etc/containerd/config.toml: default_validator "
        "enable = true, reject_oci_hook_adjustment = true): every GPU container gpu-numa-nri adds the hook to fails to "
        "create (set reject_oci_hook_adjustment = false, or use the runtime shim; docs/nri.md)");
  REQUIRE(v.notes.size() >= 1);
  CHECK(v.notes.back().starts_with("containerd requires gpu-numa-nri for every container (/etc/containerd/config.toml"));
  // A node without the plugin: the validator's settings are not ours to judge.
  StatusFacts g = protected_node();
  g.nri_validator_rejects_hooks = true;
  CHECK(judge_status(g).exit_code() == 0);
}

TEST_CASE("status: NVIDIA's runtime the toolkit container added, which the shim does not run next, is a note") {
  // as NVIDIA's toolkit container writes it (containerd 2.x drop-in; CRI-O drop-in)
  CHECK(nvidia_runtime_binary(R"(version = 3
[plugins."io.containerd.cri.v1.runtime".containerd]
  default_runtime_name = "nvidia"
[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.nvidia-cdi.options]
  BinaryName = "/usr/local/nvidia/toolkit/nvidia-container-runtime.cdi"
[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.nvidia.options]
  BinaryName = "/usr/local/nvidia/toolkit/nvidia-container-runtime"
[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.gpu-numa.options]
  BinaryName = "/usr/bin/gpu-numa-runtime"
)", "99-nvidia.toml") == "/usr/local/nvidia/toolkit/nvidia-container-runtime");
  CHECK(nvidia_runtime_binary("[crio.runtime.runtimes.nvidia]\nruntime_path = \"/usr/local/nvidia/toolkit/nvidia-container-runtime\"\n",
                              "x") == "/usr/local/nvidia/toolkit/nvidia-container-runtime");
  CHECK(nvidia_runtime_binary("[crio.runtime.runtimes.runc]\nruntime_path = \"/usr/sbin/runc\"\n", "x").empty());
  CHECK_THROWS_AS(nvidia_runtime_binary("[", "x"), Error);

  StatusFacts f = protected_node();
  f.engines[0].engine = "containerd";
  f.engines[0].nvidia_unchained = "/usr/local/nvidia/toolkit/nvidia-container-runtime";
  f.engines[0].nvidia_file = "/etc/containerd/conf.d/99-nvidia.toml";
  StatusVerdict v = judge_status(f);
  CHECK(v.exit_code() == 0);  // every container still gets the hook
  REQUIRE(v.notes.size() == 1);
  CHECK(v.notes[0] == "containerd: NVIDIA's runtime /usr/local/nvidia/toolkit/nvidia-container-runtime "
                      "(/etc/containerd/conf.d/99-nvidia.toml) is not in gpu-numa-runtime's [runtime] next: containers "
                      "that go through gpu-numa get nothing from it (its CDI devices, driver libraries); run gpu-numa-hook "
                      "install --runtime containerd again, which chains it");
}
