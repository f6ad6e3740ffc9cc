#include "gpu/gpu_request.h"

#include <doctest/doctest.h>

using namespace gnh;

namespace {
Inventory four_gpus() {
  Inventory inv;
  const char* buses[] = {"0004:04:00.0", "0004:05:00.0", "0035:03:00.0", "0035:04:00.0"};
  for (unsigned i = 0; i < 4; ++i) {
    Gpu g;
    g.minor = i;
    g.bus_id = buses[i];
    g.uuid = "GPU-0000000" + std::to_string(i) + "-aaaa-bbbb-cccc-dddddddddddd";
    inv.gpus.push_back(g);
  }
  return inv;
}
oci::Spec with_env(std::string e) {
  oci::Spec s;
  s.env = {"PATH=/bin", std::move(e)};
  return s;
}
std::vector<size_t> ids(const oci::Spec& s) { return resolve_gpu_request(s, four_gpus()).gpus; }
}  // namespace

TEST_CASE("no GPU: plain containers take the fast path") {
  oci::Spec s;
  s.env = {"PATH=/bin"};
  CHECK_FALSE(may_request_gpus(s));
  CHECK_FALSE(may_request_gpus(with_env("NVIDIA_VISIBLE_DEVICES=void")));
  CHECK_FALSE(may_request_gpus(with_env("NVIDIA_VISIBLE_DEVICES=")));
  CHECK_FALSE(may_request_gpus(with_env("NVIDIA_VISIBLE_DEVICES=none")));
  oci::Spec ctl;
  ctl.devices.push_back({"/dev/nvidiactl", "c", 195, 255});
  CHECK_FALSE(may_request_gpus(ctl));
}

TEST_CASE("NVIDIA_VISIBLE_DEVICES: all, indices, UUIDs, bus ids, MIG by index") {
  CHECK(ids(with_env("NVIDIA_VISIBLE_DEVICES=all")) == std::vector<size_t>{0, 1, 2, 3});
  CHECK(ids(with_env("NVIDIA_VISIBLE_DEVICES=3,1")) == std::vector<size_t>{1, 3});
  CHECK(ids(with_env("NVIDIA_VISIBLE_DEVICES=GPU-00000002-aaaa-bbbb-cccc-dddddddddddd")) == std::vector<size_t>{2});
  CHECK(ids(with_env("NVIDIA_VISIBLE_DEVICES=gpu-00000002-AAAA-bbbb-cccc-dddddddddddd")) == std::vector<size_t>{2});
  CHECK(ids(with_env("NVIDIA_VISIBLE_DEVICES=00000004:05:00.0")) == std::vector<size_t>{1});
  CHECK(ids(with_env("NVIDIA_VISIBLE_DEVICES=2:0")) == std::vector<size_t>{2});
}

TEST_CASE("the last NVIDIA_VISIBLE_DEVICES wins, as the process sees it") {
  oci::Spec s;
  s.env = {"NVIDIA_VISIBLE_DEVICES=0", "NVIDIA_VISIBLE_DEVICES=2"};
  CHECK(ids(s) == std::vector<size_t>{2});
}

TEST_CASE("legacy CUDA images get all GPUs when the variable is unset") {
  CHECK(ids(with_env("CUDA_VERSION=10.1")) == std::vector<size_t>{0, 1, 2, 3});
  oci::Spec modern;
  modern.env = {"CUDA_VERSION=12.2", "NVIDIA_REQUIRE_CUDA=cuda>=12.2"};
  CHECK(ids(modern).empty());
}

TEST_CASE("unknown references are reported, not guessed") {
  auto req = resolve_gpu_request(with_env("NVIDIA_VISIBLE_DEVICES=7,GPU-nope,MIG-1234"), four_gpus());
  CHECK(req.gpus.empty());
  CHECK(req.unresolved.size() == 3);
}

TEST_CASE("linux.devices: major 195 minors below 255 whatever the path") {
  oci::Spec s;
  s.devices.push_back({"/dev/gpu-renamed", "c", 195, 2});
  s.devices.push_back({"/dev/nvidiactl", "c", 195, 255});
  s.devices.push_back({"/dev/nvidia-uvm", "c", 238, 0});
  s.devices.push_back({"/dev/block195", "b", 195, 1});
  CHECK(may_request_gpus(s));
  auto req = resolve_gpu_request(s, four_gpus());
  CHECK(req.gpus == std::vector<size_t>{2});
  CHECK(req.sources == std::vector<std::string>{"linux.devices"});
}

TEST_CASE("volume-mount form and CDI annotations") {
  oci::Spec mounts;
  mounts.mounts.push_back({"/var/run/nvidia-container-devices/1", "/dev/null"});
  CHECK(ids(mounts) == std::vector<size_t>{1});

  oci::Spec cdi;
  cdi.annotations["cdi.k8s.io/nvidia-device-plugin_abc"] = "nvidia.com/gpu=0,nvidia.com/gpu=GPU-00000003-aaaa-bbbb-cccc-dddddddddddd";
  CHECK(may_request_gpus(cdi));
  CHECK(ids(cdi) == std::vector<size_t>{0, 3});

  oci::Spec all;
  all.annotations["cdi.k8s.io/x"] = "nvidia.com/gpu=all";
  CHECK(ids(all).size() == 4);

  oci::Spec other;
  other.annotations["cdi.k8s.io/y"] = "vendor.com/fpga=0";
  CHECK_FALSE(may_request_gpus(other));
}
