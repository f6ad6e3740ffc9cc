#include "spec.h"

#include <doctest/doctest.h>

#include "member_check.h"
#include "parse_error.h"

using namespace oci;

TEST_CASE("only the fields we read, type-checked") {
  Spec s = parse_spec(R"({
    "process": {"env": ["PATH=/bin", "NVIDIA_VISIBLE_DEVICES=0"], "args": ["sh"]},
    "mounts": [{"destination": "/var/run/nvidia-container-devices/1", "source": "/dev/null"}],
    "annotations": {"cdi.k8s.io/x": "nvidia.com/gpu=0"},
    "linux": {"cgroupsPath": "/docker/abc",
              "devices": [{"path": "/dev/nvidia0", "type": "c", "major": 195, "minor": 0}],
              "resources": {"cpu": {"mems": "0,8"}}},
    "hooks": {"prestart": [{"path": "/x"}]}
  })");
  CHECK(*s.env_value("NVIDIA_VISIBLE_DEVICES") == "0");
  CHECK_FALSE(s.env_value("NVIDIA"));
  CHECK(s.mounts.at(0).destination == "/var/run/nvidia-container-devices/1");
  CHECK(s.devices.at(0).major == 195);
  CHECK(s.cgroups_path == "/docker/abc");
  CHECK(*s.cpuset_mems == "0,8");
  CHECK(s.annotations.at("cdi.k8s.io/x") == "nvidia.com/gpu=0");
}

TEST_CASE("wrong types are errors naming the field") {
  auto err = [](const char* j) {
    try { parse_spec(j); } catch (const ParseError& e) { return std::string(e.what()); }
    return std::string();
  };
  CHECK(err(R"({"process":{"env":"A=1"}})") == "process.env must be an array, not string");
  CHECK(err(R"({"process":{"env":["A=1", 2]}})") == "process.env[1] must be a string, not number");
  CHECK(err(R"({"linux":{"devices":[{"major":"195"}]}})") == "linux.devices[0].major must be an integer, not string");
  CHECK(err(R"({"linux":{"resources":{"cpu":{"mems":8}}}})") == "linux.resources.cpu.mems must be a string, not number");
  CHECK(parse_spec("{}").env.empty());
  CHECK(err(R"({"hooks":{"prestart":{"path":"/x"}}})") == "hooks.prestart must be an array, not object");
  CHECK(err(R"({"hooks":{"createRuntime":[{"path":7}]}})") == "hooks.createRuntime[0].path must be a string, not number");
  CHECK(err(R"({"hooks":{"prestart":["/x"]}})") == "hooks.prestart[0] must be an object");
  CHECK(err(R"({"process":{"capabilities":{"bounding":"CAP_SYS_ADMIN"}}})") ==
        "process.capabilities.bounding must be an array, not string");
}


// Mounts are read from the scanned text where their members are plain strings; every other form
// goes through nlohmann. Both ways must give what the whole-document parse gives.
TEST_CASE("mounts: the text's way and nlohmann's agree, escapes, nulls and errors included") {
  auto same_as_whole = [](const std::string& mounts) {
    const std::string doc = R"({"process":{"env":["A=1"]},"mounts":)" + mounts + R"(,"linux":{"cgroupsPath":"/x"}})";
    std::string fast_err, whole_err;
    Spec fast, whole;
    try { fast = parse_spec(doc); } catch (const ParseError& e) { fast_err = e.what(); }
    try { whole = parse_spec_whole(doc); } catch (const ParseError& e) { whole_err = e.what(); }
    CHECK(fast_err == whole_err);
    REQUIRE(fast.mounts.size() == whole.mounts.size());
    for (size_t i = 0; i < fast.mounts.size(); ++i) {
      CHECK(fast.mounts[i].destination == whole.mounts[i].destination);
      CHECK(fast.mounts[i].source == whole.mounts[i].source);
    }
    return fast_err.empty() ? fast.mounts : std::vector<Mount>{};
  };
  auto m = same_as_whole(R"([{"destination":"/proc","type":"proc","source":"proc","options":["nosuid","a]}"]},
                             {"source":"/dev/null","destination":"/var/run/nvidia-container-devices/0"}])");
  REQUIRE(m.size() == 2);
  CHECK(m[0].destination == "/proc");
  CHECK(m[1].source == "/dev/null");
  m = same_as_whole(R"([{"destination":"/a\/b\u00e9","source":null}, {"destination":"/x"}])");
  REQUIRE(m.size() == 2);
  CHECK(m[0].destination == "/a/b\u00e9");
  CHECK(m[0].source.empty());
  CHECK(m[1].destination == "/x");
  same_as_whole(R"([{"destination":"/x","destination":"/y"}])");  // refused both ways alike
  CHECK(same_as_whole("[]").empty());
  same_as_whole("null");
  same_as_whole(R"({"destination":"/x"})");  // not an array: the error names it
  same_as_whole(R"([{"destination":"/x"}, "/y"])");
  same_as_whole(R"([{"destination":5}])");
  same_as_whole(R"([{"destination":["/x"]}])");
}

TEST_CASE("devices and env: the text's way and nlohmann's agree, integers, nulls and errors included") {
  auto same_as_whole = [](const std::string& env, const std::string& devices) {
    const std::string doc = R"({"process":{"env":)" + env + R"(},"linux":{"devices":)" + devices + "}}";
    std::string fast_err, whole_err;
    Spec fast, whole;
    try { fast = parse_spec(doc); } catch (const ParseError& e) { fast_err = e.what(); }
    try { whole = parse_spec_whole(doc); } catch (const ParseError& e) { whole_err = e.what(); }
    CHECK(fast_err == whole_err);
    CHECK(fast.env == whole.env);
    REQUIRE(fast.devices.size() == whole.devices.size());
    for (size_t i = 0; i < fast.devices.size(); ++i) {
      CHECK(fast.devices[i].path == whole.devices[i].path);
      CHECK(fast.devices[i].type == whole.devices[i].type);
      CHECK(fast.devices[i].major == whole.devices[i].major);
      CHECK(fast.devices[i].minor == whole.devices[i].minor);
    }
    return fast_err.empty() ? fast : Spec{};
  };
  Spec s = same_as_whole(R"(["PATH=/bin", "NVIDIA_VISIBLE_DEVICES=all"])",
                         R"([{"path":"/dev/nvidia0","type":"c","major":195,"minor":0,"fileMode":8630},
                             {"path":"/dev/nvidiactl","type":"c","major":195,"minor":255}])");
  REQUIRE(s.devices.size() == 2);
  CHECK(s.devices[1].minor == 255);
  CHECK(s.env.at(1) == "NVIDIA_VISIBLE_DEVICES=all");
  s = same_as_whole(R"([])", R"([{"path":"/dev/x","type":"p","major":null}, {"path":"/dev/y","type":"c","major":7,"minor":-0},
                                {"type":"b"}])");
  REQUIRE(s.devices.size() == 3);
  CHECK(s.devices[0].major == -1);  // null reads as absent
  CHECK(s.devices[1].major == 7);
  CHECK(s.devices[1].minor == 0);
  CHECK(s.devices[2].path.empty());
  same_as_whole("[]", R"([{"path":"/dev/y","type":"c","major":-7}])");  // refused both ways alike
  same_as_whole("[]", R"([{"path":"/dev/y","type":"c","major":195,"minor":0,"minor":1}])");
  // forms left to nlohmann: its values or its errors
  same_as_whole(R"(["A=\u0031"])", "[]");
  same_as_whole(R"(["A=1", 2])", "[]");
  same_as_whole(R"("A=1")", "[]");
  same_as_whole("null", "null");
  same_as_whole("[]", R"([{"path":"/dev/x","major":1.0}])");
  same_as_whole("[]", R"([{"path":"/dev/x","major":1e2}])");
  same_as_whole("[]", R"([{"path":"/dev/x","major":"195"}])");
  same_as_whole("[]", R"([{"path":"/dev/x","minor":1234567890123456789}])");
  same_as_whole("[]", R"([{"path":"/dev/x","minor":-9223372036854775808}])");
  same_as_whole("[]", R"([{"path":5}])");
  same_as_whole("[]", R"(["/dev/x"])");
  same_as_whole("[]", R"({"path":"/dev/x"})");
}

namespace {

// parse_spec's error, checked to be parse_spec_whole's too (the scanner's way and nlohmann's).
std::string misread(const std::string& doc) {
  std::string fast, whole;
  try { parse_spec(doc); } catch (const MisreadSpec& e) { fast = e.what(); } catch (const ParseError& e) { fast = std::string("not misread: ") + e.what(); }
  try { parse_spec_whole(doc); } catch (const MisreadSpec& e) { whole = e.what(); } catch (const ParseError& e) { whole = std::string("not misread: ") + e.what(); }
  CHECK(fast == whole);
  return fast;
}

const char* kGpu = R"({"path":"/dev/nvidia0","type":"c","major":195,"minor":0})";

}  // namespace

// runc (Go's encoding/json) takes a key that is ours but for case as ours, and reads two equal keys
// as one (the last scalar, objects merged); crun (libocispec over yajl) takes only the first and
// ignores other spellings. Either way a container could get /dev/nvidia0 while we read no GPU.
TEST_CASE("config.json: a member we read spelled in another case is refused, naming it") {
  CHECK(misread(std::string(R"({"LINUX":{"devices":[)") + kGpu + "]}}") ==
        R"(config.json has "LINUX" at the top level where the OCI spec has "linux"; runc reads it as that member, crun ignores it: spell it "linux")");
  CHECK(misread(std::string(R"({"linux":{"Devices":[)") + kGpu + "]}}") ==
        R"(config.json has "Devices" in linux where the OCI spec has "devices"; runc reads it as that member, crun ignores it: spell it "devices")");
  CHECK(misread(R"({"process":{"Env":["NVIDIA_VISIBLE_DEVICES=all"]}})") ==
        R"(config.json has "Env" in process where the OCI spec has "env"; runc reads it as that member, crun ignores it: spell it "env")");
  CHECK(misread(R"({"linux":{"devices":[{"path":"/dev/nvidia0","Type":"c","major":195,"minor":0}]}})") ==
        R"(config.json has "Type" in linux.devices[0] where the OCI spec has "type"; runc reads it as that member, crun ignores it: spell it "type")");
  CHECK(misread(R"({"mounts":[{"destination":"/a"},{"DESTINATION":"/var/run/nvidia-container-devices/0"}]})") ==
        R"(config.json has "DESTINATION" in mounts[1] where the OCI spec has "destination"; runc reads it as that member, crun ignores it: spell it "destination")");
  CHECK(misread(R"({"linux":{"resources":{"CPU":{"mems":"0"}}}})").find(R"("CPU" in linux.resources)") != std::string::npos);
  // Go folds U+017F (long s) to s and U+212A (Kelvin sign) to k; an escaped key is unescaped first
  CHECK(misread("{\"proce\xC5\xBFs\":{\"env\":[]}}").find("where the OCI spec has \"process\"") != std::string::npos);
  CHECK(misread(R"({"\u004cinux":{}})").find(R"(has "Linux" at the top level)") != std::string::npos);
  // members we do not read, annotation keys (a map: runc keeps their case) and the values are free
  Spec s = parse_spec(R"({"Hostname":"x","hostname":"y","annotations":{"A":"1","a":"2"},"linux":{"Sysctl":{}},"process":{"env":["Env=LINUX"]}})");
  CHECK(s.annotations.size() == 2);
  CHECK(s.env.at(0) == "Env=LINUX");
}

TEST_CASE("config.json: a member we read given twice is refused, naming it") {
  CHECK(misread(std::string(R"({"linux":{"devices":[)") + kGpu + R"(]},"linux":{"cgroupsPath":"/x"}})") ==
        R"(config.json has "linux" twice at the top level; runc and crun would not read the same one: write it once)");
  CHECK(misread(std::string(R"({"linux":{"devices":[)") + kGpu + R"(],"devices":[]}})") ==
        R"(config.json has "devices" twice in linux; runc and crun would not read the same one: write it once)");
  CHECK(misread(R"({"process":{"env":["NVIDIA_VISIBLE_DEVICES=all"],"env":[]}})").find(R"("env" twice in process)") != std::string::npos);
  CHECK(misread(R"({"linux":{"devices":[{"path":"/dev/nvidia0","type":"c","major":195,"minor":0,"minor":255}]}})") ==
        R"(config.json has "minor" twice in linux.devices[0]; runc and crun would not read the same one: write it once)");
  CHECK(misread(R"({"linux":{"resources":{"cpu":{"mems":"0","mems":"8"}}}})").find(R"("mems" twice in linux.resources.cpu)") != std::string::npos);
  CHECK(misread(R"({"mounts":[],"mounts":[]})").find(R"("mounts" twice at the top level)") != std::string::npos);
  // the first in the document is named, whichever way the text is read
  CHECK(misread(R"({"linux":{"devices":[{"type":"c","type":"c"}]},"linux":{},"hook\u0073":{}})") ==
        R"(config.json has "type" twice in linux.devices[0]; runc and crun would not read the same one: write it once)");
  // keys we do not read may repeat (their reading is the runtimes' business alone)
  CHECK(parse_spec(R"({"root":{"path":"a"},"root":{"path":"b"},"linux":{"sysctl":{},"sysctl":{}}})").devices.empty());
}

// runc and crun make a character device of type "u" as of "c"; any type but the spec's four
// runc refuses and crun makes a character device of. Numbers past Linux's 12-bit major and 20-bit
// minor are cut down by both (195 + 2^32 makes 195), so they are refused rather than guessed.
TEST_CASE("config.json: device types and numbers the runtimes would read otherwise") {
  Spec u = parse_spec(R"({"linux":{"devices":[{"path":"/dev/nvidia1","type":"u","major":195,"minor":1}]}})");
  CHECK(u.devices.at(0).type == "u");
  CHECK(misread(R"({"linux":{"devices":[{"path":"/dev/nvidia0","type":"c","major":195,"minor":4294967296}]}})") ==
        "config.json linux.devices[0] (/dev/nvidia0) has minor 4294967296, not a Linux device number (0-1048575): "
        "runtimes cut it to another device's; write the device's own numbers");
  CHECK(misread(R"({"linux":{"devices":[{"path":"/dev/x","type":"c","major":4294967491,"minor":0}]}})") ==
        "config.json linux.devices[0] (/dev/x) has major 4294967491, not a Linux device number (0-4095): "
        "runtimes cut it to another device's; write the device's own numbers");
  CHECK(misread(R"({"linux":{"devices":[{"path":"/dev/x","type":"c","major":4291,"minor":0}]}})").find("major 4291,") != std::string::npos);
  CHECK(misread(R"({"linux":{"devices":[{"path":"/dev/x","type":"c","major":-195,"minor":0}]}})").find("major -195,") != std::string::npos);
  CHECK(misread(R"({"linux":{"devices":[{"path":"/dev/x","type":"c","major":195,"minor":1048576}]}})").find("minor 1048576,") != std::string::npos);
  CHECK(misread(R"({"linux":{"devices":[{"path":"/dev/x","type":"x","major":195,"minor":0}]}})") ==
        R"(config.json linux.devices[0] (/dev/x) has type "x": runc refuses it and crun makes a character device; use "c", "u", "b" or "p")");
  CHECK(misread(R"({"linux":{"devices":[{"path":"/dev/x","major":195,"minor":0}]}})").find(R"(has type "")") != std::string::npos);
  // the largest numbers Linux has, and -1 (absent), are read as they are
  Spec edge = parse_spec(R"({"linux":{"devices":[{"path":"/dev/a","type":"c","major":4095,"minor":1048575},
                                                  {"path":"/dev/b","type":"c","major":195,"minor":-1}]}})");
  CHECK(edge.devices.at(0).major == 4095);
  CHECK(edge.devices.at(1).minor == -1);
}

TEST_CASE("hooks before the container's process and the bounding capabilities: who reads NVIDIA_VISIBLE_DEVICES") {
  const char* text = R"({
    "process": {"env": [], "capabilities": {"bounding": ["CAP_CHOWN", "CAP_SYS_ADMIN"], "effective": ["CAP_CHOWN"]}},
    "hooks": {"prestart": [{"path": "/proc/77/exe", "args": ["libnetwork-setkey", "-exec-root=/var/run/docker"]},
                           {"path": "/usr/bin/nvidia-container-runtime-hook", "args": ["nvidia-container-runtime-hook", "prestart"],
                            "env": ["PATH=/bin"], "timeout": 5}],
              "createRuntime": [{"path": "/usr/bin/gpu-numa-hook"}],
              "createContainer": [{"path": "/usr/bin/nvidia-cdi-hook", "args": ["nvidia-cdi-hook", "update-ldcache"]}],
              "poststop": [{"path": "/not/read"}]}
  })";
  for (const Spec& s : {parse_spec(text), parse_spec_whole(text)}) {
    CHECK(s.bounding_capabilities == std::vector<std::string>{"CAP_CHOWN", "CAP_SYS_ADMIN"});
    REQUIRE(s.hooks.size() == 4);
    CHECK(s.hooks[0].stage == "prestart");
    CHECK(s.hooks[0].args.at(0) == "libnetwork-setkey");
    CHECK(s.hooks[1].path == "/usr/bin/nvidia-container-runtime-hook");
    CHECK(s.hooks[2].stage == "createRuntime");
    CHECK(s.hooks[2].args.empty());
    CHECK(s.hooks[3].stage == "createContainer");
  }
  // a second hooks member: runc and crun would run different hooks
  CHECK(misread(R"({"hooks":{"prestart":[]},"hooks":{"prestart":[{"path":"/usr/bin/nvidia-container-runtime-hook"}]}})")
            .find(R"("hooks" twice)") != std::string::npos);
}
