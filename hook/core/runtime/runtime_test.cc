// The runtime shim's pure parts: runc's argv, the config.json edit, update's merge rule, runc's
// state.json; and crun's status, which `check` reads.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "member_check.h"
#include "runtime/crun_status.h"
#include "runtime/prestart_registration.h"
#include "runtime/runc_command_line.h"
#include "runtime/runc_log_entry.h"
#include "runtime/runc_state.h"
#include "runtime/update_mems.h"

using namespace gnh;

TEST_CASE("runc argv: global options with values are not taken for the subcommand") {
  auto c = parse_runc_command_line({"runc", "--root", "/run/docker/runtime-runc/moby", "--log", "/x/log.json",
                                    "--log-format", "json", "--systemd-cgroup", "create", "--bundle", "/b",
                                    "--pid-file", "/b/init.pid", "abc"});
  CHECK(c.subcommand == "create");
  CHECK(c.subcommand_index == 8);
  CHECK(c.root == "/run/docker/runtime-runc/moby");
  CHECK(c.bundle == "/b");
  CHECK(c.container_id == "abc");
}

TEST_CASE("runc argv: -b, --bundle=, single-dash forms and no bundle") {
  CHECK(parse_runc_command_line({"runc", "run", "-b", "/b", "id"}).bundle == "/b");
  CHECK(parse_runc_command_line({"runc", "-root=/r", "run", "--bundle=/b", "-d", "id"}).bundle == "/b");
  auto c = parse_runc_command_line({"runc", "create", "--console-socket", "/s.sock", "id"});
  CHECK(!c.bundle);
  CHECK(c.container_id == "id");
  CHECK(parse_runc_command_line({"runc", "--version"}).subcommand.empty());
  CHECK_THROWS_AS(parse_runc_command_line({"runc", "--root"}), Error);
  CHECK_THROWS_AS(parse_runc_command_line({"runc", "create", "--bundle"}), Error);
}

TEST_CASE("runc argv: update's resources and cpuset-mems, with their positions") {
  auto c = parse_runc_command_line({"runc", "--root", "/r", "update", "--resources", "-", "id"});
  CHECK(c.subcommand == "update");
  CHECK(c.resources == "-");
  CHECK(c.container_id == "id");
  auto m = parse_runc_command_line({"runc", "update", "--memory", "100", "--cpuset-mems", "0", "id"});
  CHECK(m.cpuset_mems == "0");
  CHECK(m.cpuset_mems_index == 5);
  CHECK(!m.cpuset_mems_inline);
  CHECK(m.container_id == "id");
  auto i = parse_runc_command_line({"runc", "update", "--cpuset-mems=0", "id"});
  CHECK(i.cpuset_mems_inline);
  CHECK(i.cpuset_mems_index == 2);
}

TEST_CASE("config.json: our hook is appended after the others, once, every other field kept") {
  const std::string in =
      R"({"ociVersion":"1.0.2","process":{"args":["sh"]},"zeta":1,"alpha":{"b":2,"a":1},)"
      R"("hooks":{"createRuntime":[{"path":"/x"}],"prestart":[{"path":"/usr/bin/nvidia-container-runtime-hook","args":["nvidia-container-runtime-hook","prestart"]}]}})";
  auto r = add_prestart_hook(in, shim_hook_entry("/usr/bin/gpu-numa-hook"));
  REQUIRE(r.added);
  auto out = nlohmann::ordered_json::parse(r.text);
  auto before = nlohmann::ordered_json::parse(in);
  REQUIRE(out["hooks"]["prestart"].size() == 2);
  CHECK(out["hooks"]["prestart"][0] == before["hooks"]["prestart"][0]);
  CHECK(out["hooks"]["prestart"][1]["path"] == "/usr/bin/gpu-numa-hook");
  CHECK(out["hooks"]["prestart"][1]["args"] == nlohmann::ordered_json({"gpu-numa-hook", "prestart"}));
  CHECK(out["hooks"]["prestart"][1]["timeout"] == 60);
  out["hooks"]["prestart"].erase(1);
  CHECK(out == before);  // key order included: ordered_json compares in order
  CHECK(out.begin().key() == "ociVersion");

  auto again = add_prestart_hook(r.text, shim_hook_entry("/usr/bin/gpu-numa-hook"));
  CHECK(!again.added);
  CHECK(again.text == r.text);
  // Registered by hand under another path: still ours by its name.
  auto other = add_prestart_hook(R"({"hooks":{"prestart":[{"path":"/opt/gpu-numa-hook"}]}})",
                                 shim_hook_entry("/usr/bin/gpu-numa-hook"));
  CHECK(!other.added);
}

// CRI-O 1.37 writes a hooks.d `prestart` hook into createRuntime (seen in tests/crio); the NRI plugin
// injects ours there too. The shim must see it: runtime handler gpu-numa plus either ran the hook twice.
TEST_CASE("config.json: ours already at createRuntime (CRI-O's hooks.d, the NRI plugin): nothing added") {
  const std::string in = R"({"hooks":{"createRuntime":[{"path":"/usr/bin/gpu-numa-hook","args":["gpu-numa-hook","prestart"]}]}})";
  auto r = add_prestart_hook(in, shim_hook_entry("/usr/bin/gpu-numa-hook"));
  CHECK(!r.added);
  CHECK(r.text == in);
  CHECK(!add_prestart_hook(R"({"hooks":{"prestart":[],"createRuntime":[{"path":"/opt/x/gpu-numa-hook"}]}})",
                           shim_hook_entry("/usr/bin/gpu-numa-hook")).added);
  // another program at createRuntime is not ours: ours is added at prestart
  auto other = add_prestart_hook(R"({"hooks":{"createRuntime":[{"path":"/usr/bin/other-hook"}]}})",
                                 shim_hook_entry("/usr/bin/gpu-numa-hook"));
  CHECK(other.added);
  CHECK(nlohmann::json::parse(other.text)["hooks"]["prestart"][0]["path"] == "/usr/bin/gpu-numa-hook");
}

TEST_CASE("config.json: no hooks yet, and broken specs refused") {
  auto r = add_prestart_hook(R"({"ociVersion":"1.0.2"})", shim_hook_entry("/h"));
  CHECK(r.added);
  CHECK(nlohmann::json::parse(r.text)["hooks"]["prestart"].size() == 1);
  CHECK_THROWS_AS(add_prestart_hook("{", shim_hook_entry("/h")), Error);
  CHECK_THROWS_AS(add_prestart_hook("[]", shim_hook_entry("/h")), Error);
  CHECK_THROWS_AS(add_prestart_hook(R"({"hooks":[]})", shim_hook_entry("/h")), Error);
  CHECK_THROWS_AS(add_prestart_hook(R"({"hooks":{"prestart":{}}})", shim_hook_entry("/h")), Error);
}

namespace {

std::string docker_config() {
  std::ifstream f(std::string(GNH_SOURCE_DIR) + "/tests/fixtures/docker-20.10/config.json");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

// The shim rewrites only `hooks`: every byte the engine wrote outside it is still there, and the
// document reads as the whole-document edit would (ordered: key order included).
TEST_CASE("config.json from Docker: only hooks is rewritten, the rest is byte for byte the engine's") {
  const std::string in = docker_config();
  REQUIRE(in.size() == 9192);
  const size_t at = in.find(R"("hooks":{})");
  REQUIRE(at != std::string::npos);
  auto r = add_prestart_hook(in, shim_hook_entry("/usr/bin/gpu-numa-hook"));
  REQUIRE(r.added);
  const std::string hooks = R"("hooks":{"prestart":[{"path":"/usr/bin/gpu-numa-hook","args":["gpu-numa-hook","prestart"],)"
                            R"("env":["PATH=/usr/sbin:/usr/bin:/sbin:/bin"],"timeout":60}]})";
  CHECK(r.text == in.substr(0, at) + hooks + in.substr(at + 10));
  auto expected = nlohmann::ordered_json::parse(in);
  expected["hooks"]["prestart"] = nlohmann::ordered_json::parse(
      R"([{"path":"/usr/bin/gpu-numa-hook","args":["gpu-numa-hook","prestart"],"env":["PATH=/usr/sbin:/usr/bin:/sbin:/bin"],"timeout":60}])");
  CHECK(nlohmann::ordered_json::parse(r.text) == expected);
  auto again = add_prestart_hook(r.text, shim_hook_entry("/usr/bin/gpu-numa-hook"));
  CHECK(!again.added);
  CHECK(again.text == r.text);
}

TEST_CASE("config.json: hooks added where there were none, in any layout the engine wrote") {
  const std::string entry = R"({"path":"/h","args":["gpu-numa-hook","prestart"],"env":["PATH=/usr/sbin:/usr/bin:/sbin:/bin"],"timeout":60})";
  CHECK(add_prestart_hook("{}", shim_hook_entry("/h")).text == R"({"hooks":{"prestart":[)" + entry + "]}}");
  CHECK(add_prestart_hook(" {\n} \n", shim_hook_entry("/h")).text == R"( {
"hooks":{"prestart":[)" + entry + "]}} \n");
  CHECK(add_prestart_hook("{\n  \"a\": 1\n}\n", shim_hook_entry("/h")).text ==
        "{\n  \"a\": 1\n,\"hooks\":{\"prestart\":[" + entry + "]}}\n");
  CHECK(add_prestart_hook(R"({"hooks":null,"z":[1]})", shim_hook_entry("/h")).text ==
        R"({"hooks":{"prestart":[)" + entry + R"(]},"z":[1]})");
  // what the scanner leaves to nlohmann still works: an escaped key elsewhere, a BOM
  auto escaped = add_prestart_hook(R"({"hook\u0073":{"prestart":[{"path":"/x"}]}})", shim_hook_entry("/h"));
  CHECK(nlohmann::json::parse(escaped.text)["hooks"]["prestart"].size() == 2);
}

// runc merges two "hooks" (Go's encoding/json), crun reads the first; runc takes "Hooks" or
// "Prestart" for ours, crun ignores them; and the hooks object we write back would keep only the
// last of two equal keys anywhere in it. Any of these would lose the engine's hooks or ours in one
// runtime, so the shim refuses the create and leaves config.json as it was.
TEST_CASE("config.json: hooks the runtimes would read otherwise are refused, not rewritten") {
  auto refused = [](const std::string& in) {
    try {
      add_prestart_hook(in, shim_hook_entry("/h"));
    } catch (const oci::MisreadSpec& e) {
      return std::string(e.what());
    }
    return std::string("not refused");
  };
  CHECK(refused(R"({"hooks":{"prestart":[]},"hooks":{"poststop":[{"path":"/engine"}]}})") ==
        R"(config.json has "hooks" twice at the top level; runc and crun would not read the same one: write it once (config.json left unchanged))");
  CHECK(refused(R"({"Hooks":{"poststop":[{"path":"/engine"}]}})") ==
        R"(config.json has "Hooks" at the top level where the OCI spec has "hooks"; runc reads it as that member, crun ignores it: spell it "hooks" (config.json left unchanged))");
  CHECK(refused(R"({"hooks":{"Prestart":[{"path":"/engine"}]}})") ==
        R"(config.json has "Prestart" in hooks where the OCI spec has "prestart"; runc reads it as that member, crun ignores it: spell it "prestart" (config.json left unchanged))");
  CHECK(refused(R"({"hooks":{"poststop":[{"path":"/a"}],"poststop":[{"path":"/b"}]}})").find(R"("poststop" twice in hooks;)") != std::string::npos);
  CHECK(refused(R"({"hooks":{"prestart":[{"path":"/a","path":"/b"}]}})").find(R"("path" twice in hooks.prestart[0];)") != std::string::npos);
  // read whole (an escaped key): the whole document is written back, so every key is unique
  CHECK(refused(R"({"hook\u0073":{},"linux":{"sysctl":{"a":"1","a":"2"}}})").find(R"("a" twice in linux.sysctl;)") != std::string::npos);
  CHECK(refused(R"({"hook\u0073":{},"HOOKS":{}})").find(R"("HOOKS" at the top level)") != std::string::npos);
  // other members' spellings and repeats outside hooks are the hook's to judge, not the shim's
  CHECK(add_prestart_hook(R"({"LINUX":{},"root":{},"root":{},"hooks":{"poststop":[]}})", shim_hook_entry("/h")).added);
}

TEST_CASE("update: a GPU node the container has is kept, others follow the request") {
  NodeSet gpu = NodeSet::of({252, 253});
  CHECK(keep_gpu_nodes(NodeSet::of({0}), NodeSet::of({0, 8, 252}), gpu) == NodeSet::of({0, 252}));
  // A GPU node the container does not have now is not added by an update.
  CHECK(keep_gpu_nodes(NodeSet::of({0}), NodeSet::of({0, 8}), gpu) == NodeSet::of({0}));
  auto u = widen_mems_value("0", NodeSet::of({0, 8, 252}), gpu);
  CHECK(u.widened == "0,252");
  CHECK(u.kept == NodeSet::of({252}));
  auto same = widen_mems_value("0,252", NodeSet::of({0, 252}), gpu);
  CHECK(same.kept.empty());
  CHECK(same.widened == "0,252");
  CHECK(widen_mems_value("", NodeSet::of({252}), gpu).widened.empty());
  CHECK_THROWS_AS(widen_mems_value("x", NodeSet::of({252}), gpu), Error);
}

TEST_CASE("update: resources JSON widened in place, other fields kept") {
  const std::string in = R"({"memory":{"limit":100},"cpu":{"shares":2,"mems":"0","cpus":"0-1"}})";
  auto r = widen_resources_json(in, NodeSet::of({0, 1}), NodeSet::of({1}));
  REQUIRE(r.update);
  CHECK(r.text == R"({"memory":{"limit":100},"cpu":{"shares":2,"mems":"0-1","cpus":"0-1"}})");
  auto none = widen_resources_json(R"({"cpu":{"shares":2}})", NodeSet::of({0, 1}), NodeSet::of({1}));
  CHECK(!none.update);
  CHECK(none.text == R"({"cpu":{"shares":2}})");
  CHECK_THROWS_AS(widen_resources_json("nope", NodeSet::of({0}), NodeSet::of({0})), Error);
}

TEST_CASE("runc state.json: bundle label and cpuset path (v1), the unified path (v2)") {
  auto v1 = parse_runc_state(
      R"({"id":"c","init_process_pid":5,"config":{"labels":["bundle=/run/b"]},"cgroup_paths":{"cpu":"/sys/fs/cgroup/cpu/x","cpuset":"/sys/fs/cgroup/cpuset/x"}})");
  CHECK(v1.bundle == "/run/b");
  CHECK(v1.cpuset_dir == "/sys/fs/cgroup/cpuset/x");
  auto v2 = parse_runc_state(R"({"cgroup_paths":{"":"/sys/fs/cgroup/x"}})");
  CHECK(v2.cpuset_dir == "/sys/fs/cgroup/x");
  CHECK(!v2.bundle);
  CHECK_THROWS_AS(parse_runc_state("[1]"), Error);
}

namespace {

std::string crun_fixture(const char* name) {
  std::ifstream f(std::string(GNH_SOURCE_DIR) + "/tests/fixtures/crun-1.8.1/" + name);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("crun status as crun 1.8.1 writes it: bundle and the cgroup path within the hierarchy") {
  std::string cgroupfs = crun_fixture("status-cgroupfs");
  REQUIRE(!cgroupfs.empty());
  auto a = parse_crun_status(cgroupfs);
  CHECK(a.bundle == "/tmp/crun-obs.VU1n/b");
  CHECK(a.cgroup_path == "/gnh-obs/crunobs1");
  auto p = parse_crun_status(crun_fixture("status-podman"));
  CHECK(p.bundle ==
        "/tmp/pobs.9Ldr/root/vfs-containers/0bc87a00f73488fbd04d6311863f7b7a8b757554cc7eb37aa6f05737069d3c11/userdata");
  CHECK(p.cgroup_path == "/gnh-pobs/libpod-0bc87a00f73488fbd04d6311863f7b7a8b757554cc7eb37aa6f05737069d3c11");
}

TEST_CASE("crun status: no cgroup, a relative or escaping path, a missing bundle, not an object") {
  CHECK(!parse_crun_status(R"({"cgroup-path":"","bundle":"/b"})").cgroup_path);  // crun made no cgroup
  CHECK(!parse_crun_status(R"({"cgroup-path":"x/y","bundle":"/b"})").cgroup_path);
  CHECK(!parse_crun_status(R"({"cgroup-path":"/x/../../etc","bundle":"/b"})").cgroup_path);
  CHECK(parse_crun_status(R"({"cgroup-path":"/x/..y","bundle":"/b"})").cgroup_path == "/x/..y");
  CHECK(parse_crun_status(R"({"cgroup-path":"/machine.slice/libpod-1.scope/container"})").cgroup_path ==
        "/machine.slice/libpod-1.scope/container");
  CHECK(!parse_crun_status(R"({"cgroup-path":"/a","bundle":7})").bundle);
  CHECK(!parse_crun_status(R"({"cgroup-path":"/a"})").bundle);
  CHECK_THROWS_AS(parse_crun_status("[1]"), Error);
  CHECK_THROWS_AS(parse_crun_status("{"), Error);
}

TEST_CASE("runc's log: our error in the format the caller reads") {
  CHECK(runc_log_error_line("json", "a \"b\"", "T") == "{\"level\":\"error\",\"msg\":\"a \\\"b\\\"\",\"time\":\"T\"}\n");
  CHECK(runc_log_error_line("text", "a \"b\"\nc", "T") == "time=\"T\" level=error msg=\"a \\\"b\\\"\\nc\"\n");
  auto c = parse_runc_command_line({"runc", "--log", "/l.json", "--log-format=json", "create", "id"});
  CHECK(c.log == "/l.json");
  CHECK(c.log_format == "json");
}
