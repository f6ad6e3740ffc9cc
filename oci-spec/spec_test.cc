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
