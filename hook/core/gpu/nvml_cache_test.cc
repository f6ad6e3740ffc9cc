#include "gpu/nvml_cache.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

using namespace gnh;

namespace {

// A GB200-like host: GPU 0 whole (node 2), GPU 1 in MIG mode with two instances of their own nodes.
const char* kCache = R"({"format":1,"boot_id":"3f1c2d4e-0000-4000-8000-000000000001","driver_version":"570.124.06",
 "gpus":[
  {"index":0,"uuid":"GPU-aaaaaaaa-0000-4000-8000-000000000000","minor":0,"bus_id":"0008:01:00.0","memory_node":2,
   "mig_mode":"disabled","mig_devices":[]},
  {"index":1,"uuid":"GPU-aaaaaaaa-0000-4000-8000-000000000001","minor":1,"bus_id":"0009:01:00.0","memory_node":-1,
   "mig_mode":"enabled","mig_devices":[
     {"index":0,"uuid":"MIG-bbbbbbbb-0000-4000-8000-000000000010","gpu_instance_id":1,"compute_instance_id":0,"memory_node":10},
     {"index":1,"uuid":"MIG-bbbbbbbb-0000-4000-8000-000000000011","gpu_instance_id":2,"compute_instance_id":0,"memory_node":11}]}]})";

std::string broken(const std::function<void(nlohmann::json&)>& edit) {
  auto j = nlohmann::json::parse(kCache);
  edit(j);
  std::string why;
  auto c = parse_nvml_cache(j.dump(), &why);
  CHECK_FALSE(c.has_value());
  return why;
}

}  // namespace

TEST_CASE("NVML cache: every field read and written back the same") {
  std::string why;
  auto c = parse_nvml_cache(kCache, &why);
  REQUIRE_MESSAGE(c.has_value(), why);
  CHECK(c->boot_id == "3f1c2d4e-0000-4000-8000-000000000001");
  CHECK(c->driver_version == "570.124.06");
  REQUIRE(c->gpus.size() == 2);
  CHECK(c->gpus[0].memory_node == 2);
  CHECK(c->gpus[0].bus_id == "0008:01:00.0");
  CHECK(c->gpus[1].memory_node == std::nullopt);
  CHECK(c->gpus[1].mig_mode == "enabled");
  REQUIRE(c->gpus[1].mig_devices.size() == 2);
  CHECK(c->gpus[1].mig_devices[1].uuid == "MIG-bbbbbbbb-0000-4000-8000-000000000011");
  CHECK(c->gpus[1].mig_devices[1].gpu_instance_id == 2);
  CHECK(c->gpus[1].mig_devices[1].memory_node == 11);
  auto again = parse_nvml_cache(nvml_cache_json(*c));
  REQUIRE(again.has_value());
  CHECK(nvml_cache_json(*again) == nvml_cache_json(*c));
  CHECK(nlohmann::json::parse(nvml_cache_json(*c)) == nlohmann::json::parse(kCache));
  CHECK(find_cached_gpu(*c, "gpu-AAAAAAAA-0000-4000-8000-000000000001") == &c->gpus[1]);
  CHECK(find_cached_gpu(*c, "GPU-nope") == nullptr);
}

TEST_CASE("NVML cache: hostile or broken content is refused with the field named") {
  std::string why;
  CHECK_FALSE(parse_nvml_cache("", &why));
  CHECK(why == "not JSON");
  CHECK_FALSE(parse_nvml_cache("[1]", &why));
  CHECK(why == "not a JSON object");
  CHECK_FALSE(parse_nvml_cache(std::string(300, '[') + std::string(300, ']'), &why));
  CHECK(why == "nested too deeply");
  CHECK_FALSE(parse_nvml_cache(std::string(kMaxNvmlCacheBytes + 1, ' '), &why));
  CHECK(why == "larger than 262144 bytes");
  CHECK(broken([](auto& j) { j["format"] = 2; }) == "cache.format: not an integer in 1..1");
  CHECK(broken([](auto& j) { j["extra"] = 1; }) == "cache: unknown key 'extra'");
  CHECK(broken([](auto& j) { j["boot_id"] = "x\ny"; }) == "cache.boot_id: not a valid value");
  CHECK(broken([](auto& j) { j["gpus"] = nlohmann::json::object(); }) == "cache.gpus: missing or not an array");
  CHECK(broken([](auto& j) { j["gpus"][0]["memory_node"] = 1024; }) ==
        "cache.gpus[0].memory_node: not an integer in -1..1023");
  CHECK(broken([](auto& j) { j["gpus"][0]["memory_node"] = "2"; }) == "cache.gpus[0].memory_node: missing or not an integer");
  CHECK(broken([](auto& j) { j["gpus"][0]["minor"] = 255; }) == "cache.gpus[0].minor: not an integer in 0..254");
  CHECK(broken([](auto& j) { j["gpus"][0]["bus_id"] = "00000008:01:00.0"; }) ==
        "cache.gpus[0].bus_id: not a PCI address as 0000:01:00.0");
  CHECK(broken([](auto& j) { j["gpus"][0]["uuid"] = "MIG-aaaa"; }) == "cache.gpus[0].uuid: does not start with GPU-");
  CHECK(broken([](auto& j) { j["gpus"][0]["uuid"] = "GPU-../../etc"; }) == "cache.gpus[0].uuid: not a valid value");
  CHECK(broken([](auto& j) { j["gpus"][0]["mig_mode"] = "maybe"; }) ==
        "cache.gpus[0].mig_mode: not one of enabled, disabled, unsupported");
  CHECK(broken([](auto& j) { j["gpus"][0]["mig_devices"] = j["gpus"][1]["mig_devices"]; }) ==
        "cache.gpus[0].mig_devices: MIG devices on a GPU whose MIG mode is not enabled");
  CHECK(broken([](auto& j) { j["gpus"][1]["index"] = 0; }) == "cache.gpus[1].index: appears twice");
  CHECK(broken([](auto& j) { j["gpus"][1]["mig_devices"][1]["index"] = 0; }) ==
        "cache.gpus[1].mig_devices[1].index: appears twice");
  CHECK(broken([](auto& j) { j["gpus"][1]["mig_devices"][1]["uuid"] = j["gpus"][1]["mig_devices"][0]["uuid"]; }) ==
        "cache.gpus[1].mig_devices[1].uuid: appears twice");
  CHECK(broken([](auto& j) { j["gpus"][1]["mig_devices"][0].erase("gpu_instance_id"); }) ==
        "cache.gpus[1].mig_devices[0].gpu_instance_id: missing or not an integer");
  CHECK(broken([](auto& j) {
          for (int i = 0; i < 70; ++i) j["gpus"].push_back(j["gpus"][0]);
        }) == "cache.gpus: too many entries");
}

TEST_CASE("NVML cache: stale after a reboot or another driver, fresh otherwise") {
  auto c = parse_nvml_cache(kCache);
  REQUIRE(c.has_value());
  CHECK(nvml_cache_staleness(*c, "3f1c2d4e-0000-4000-8000-000000000001\n", "570.124.06") == "");
  CHECK(nvml_cache_staleness(*c, "99999999-0000-4000-8000-000000000001\n", "570.124.06") ==
        "written before the last boot (boot_id 3f1c2d4e-0000-4000-8000-000000000001)");
  CHECK(nvml_cache_staleness(*c, "3f1c2d4e-0000-4000-8000-000000000001", "580.1") ==
        "written for driver 570.124.06, the driver loaded now is 580.1");
  CHECK(nvml_cache_staleness(*c, "3f1c2d4e-0000-4000-8000-000000000001", "") ==
        "the driver's version is unknown (no /proc/driver/nvidia/version)");
}

TEST_CASE("driver version from /proc/driver/nvidia/version (real H200 capture's format)") {
  CHECK(parse_driver_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  "
                             "(nixbld@)  \nGCC version:  gcc version 15.3.0 (GCC) \n") == "580.159.04");
  CHECK(parse_driver_version("NVRM version: NVIDIA UNIX aarch64 Kernel Module  570.124.06  Wed Feb 26 2025\n") ==
        "570.124.06");
  CHECK(parse_driver_version("NVRM version: unknown\nGCC version: 12.2.0\n") == std::nullopt);
  CHECK(parse_driver_version("") == std::nullopt);
}

TEST_CASE("NVML cache: the driver's CUDA version and each GPU's brand and compute capability, optional, checked") {
  auto j = nlohmann::json::parse(kCache);
  j["cuda_version"] = "12.8";
  j["gpus"][0]["brand"] = "nvidia";
  j["gpus"][0]["compute_capability"] = "10.0";
  std::string why;
  auto c = parse_nvml_cache(j.dump(), &why);
  REQUIRE_MESSAGE(c.has_value(), why);
  CHECK(c->cuda_version == "12.8");
  CHECK(c->gpus[0].brand == "nvidia");
  CHECK(c->gpus[0].compute_capability == "10.0");
  CHECK_FALSE(c->gpus[1].brand.has_value());
  auto again = parse_nvml_cache(nvml_cache_json(*c));
  REQUIRE(again.has_value());
  CHECK(nvml_cache_json(*again) == nvml_cache_json(*c));
  // A cache of an older probe (no such fields) still parses: kCache above.
  CHECK(parse_nvml_cache(kCache).has_value());
  CHECK(broken([](auto& b) { b["cuda_version"] = "13"; }) == "cache.cuda_version: not a version as 13.0");
  CHECK(broken([](auto& b) { b["cuda_version"] = "13.0.1"; }) == "cache.cuda_version: not a version as 13.0");
  CHECK(broken([](auto& b) { b["cuda_version"] = 13000; }) == "cache.cuda_version: missing or not a string");
  CHECK(broken([](auto& b) { b["gpus"][0]["brand"] = "Tesla"; }) == "cache.gpus[0].brand: not a lower-case name");
  CHECK(broken([](auto& b) { b["gpus"][0]["brand"] = ""; }) == "cache.gpus[0].brand: not a valid value");
  CHECK(broken([](auto& b) { b["gpus"][0]["compute_capability"] = "9.0.0"; }) ==
        "cache.gpus[0].compute_capability: not a version as 13.0");
  CHECK(broken([](auto& b) { b["gpus"][0]["compute_capability"] = "x.0"; }) ==
        "cache.gpus[0].compute_capability: not a version as 13.0");
}
