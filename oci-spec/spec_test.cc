#include "spec.h"

#include <doctest/doctest.h>

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
  m = same_as_whole(R"([{"destination":"/a\/b\u00e9","source":null}, {"destination":"/x","destination":"/y"}])");
  REQUIRE(m.size() == 2);
  CHECK(m[0].destination == "/a/b\u00e9");
  CHECK(m[0].source.empty());
  CHECK(m[1].destination == "/y");  // the last of duplicate keys, as nlohmann keeps it
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
  s = same_as_whole(R"([])", R"([{"path":"/dev/x","major":null}, {"path":"/dev/y","major":-7,"minor":-0}, {}])");
  REQUIRE(s.devices.size() == 3);
  CHECK(s.devices[0].major == -1);  // null reads as absent
  CHECK(s.devices[1].major == -7);
  CHECK(s.devices[2].path.empty());
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
