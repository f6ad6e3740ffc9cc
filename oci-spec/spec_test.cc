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
