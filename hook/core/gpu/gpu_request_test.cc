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
std::vector<size_t> ids(const oci::Spec& s) { return resolve_gpu_request(s, four_gpus(), every_device_form()).gpus; }
}  // namespace

TEST_CASE("no GPU: plain containers take the fast path") {
  oci::Spec s;
  s.env = {"PATH=/bin"};
  CHECK_FALSE(may_request_gpus(s, every_device_form()));
  CHECK_FALSE(may_request_gpus(with_env("NVIDIA_VISIBLE_DEVICES=void"), every_device_form()));
  CHECK_FALSE(may_request_gpus(with_env("NVIDIA_VISIBLE_DEVICES="), every_device_form()));
  CHECK_FALSE(may_request_gpus(with_env("NVIDIA_VISIBLE_DEVICES=none"), every_device_form()));
  oci::Spec ctl;
  ctl.devices.push_back({"/dev/nvidiactl", "c", 195, 255});
  CHECK_FALSE(may_request_gpus(ctl, every_device_form()));
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
  auto req = resolve_gpu_request(with_env("NVIDIA_VISIBLE_DEVICES=7,GPU-nope,MIG-1234"), four_gpus(), every_device_form());
  CHECK(req.gpus.empty());
  CHECK(req.unresolved.size() == 3);
}

TEST_CASE("linux.devices: major 195 minors below 255 whatever the path") {
  oci::Spec s;
  s.devices.push_back({"/dev/gpu-renamed", "c", 195, 2});
  s.devices.push_back({"/dev/nvidiactl", "c", 195, 255});
  s.devices.push_back({"/dev/nvidia-uvm", "c", 238, 0});
  s.devices.push_back({"/dev/block195", "b", 195, 1});
  CHECK(may_request_gpus(s, every_device_form()));
  auto req = resolve_gpu_request(s, four_gpus(), every_device_form());
  CHECK(req.gpus == std::vector<size_t>{2});
  CHECK(req.sources == std::vector<std::string>{"linux.devices"});
}

// NVIDIA's CDI specs give every GPU device /dev/nvidia-modeset (195:254) beside /dev/nvidiaN, and
// the common edits add /dev/nvidiactl (195:255) and /dev/nvidia-uvm* (a major of their own).
// Only nvidiaN names a GPU: modeset counted would read every GPU's information file for nothing
// and log an unresolved reference on every CDI start.
TEST_CASE("linux.devices: a CDI GPU device's nodes name exactly its GPU, modeset, ctl and uvm none") {
  oci::Spec s;
  s.devices.push_back({"/dev/nvidia0", "c", 195, 0});
  s.devices.push_back({"/dev/nvidia-modeset", "c", 195, 254});
  s.devices.push_back({"/dev/nvidiactl", "c", 195, 255});
  s.devices.push_back({"/dev/nvidia-uvm", "c", 510, 0});
  s.devices.push_back({"/dev/nvidia-uvm-tools", "c", 510, 1});
  s.devices.push_back({"/dev/nvidia-caps/nvidia-cap1", "c", 235, 1});
  auto req = resolve_gpu_request(s, four_gpus(), every_device_form());
  CHECK(req.gpus == std::vector<size_t>{0});
  CHECK(req.unresolved.empty());
  auto want = identities_wanted(s, every_device_form());
  REQUIRE(want);
  CHECK(want->minors == std::vector<unsigned>{0});

  oci::Spec modeset_only;
  modeset_only.devices.push_back({"/dev/nvidia-modeset", "c", 195, 254});
  modeset_only.devices.push_back({"/dev/nvidiactl", "c", 195, 255});
  CHECK_FALSE(may_request_gpus(modeset_only, every_device_form()));
  CHECK(resolve_gpu_request(modeset_only, four_gpus(), every_device_form()).unresolved.empty());
  CHECK_FALSE(identities_wanted(modeset_only, every_device_form()));
}

// runc and crun make type "u" (unbuffered) a character device, as "c".
TEST_CASE("linux.devices: type u is a character device as c is") {
  oci::Spec s;
  s.devices.push_back({"/dev/nvidia3", "u", 195, 3});
  CHECK(may_request_gpus(s, every_device_form()));
  CHECK(ids(s) == std::vector<size_t>{3});
  REQUIRE(identities_wanted(s, every_device_form()));
  CHECK(identities_wanted(s, every_device_form())->minors == std::vector<unsigned>{3});
}

TEST_CASE("volume-mount form and CDI annotations") {
  oci::Spec mounts;
  mounts.mounts.push_back({"/var/run/nvidia-container-devices/1", "/dev/null"});
  CHECK(ids(mounts) == std::vector<size_t>{1});

  oci::Spec cdi;
  cdi.annotations["cdi.k8s.io/nvidia-device-plugin_abc"] = "nvidia.com/gpu=0,nvidia.com/gpu=GPU-00000003-aaaa-bbbb-cccc-dddddddddddd";
  CHECK(may_request_gpus(cdi, every_device_form()));
  CHECK(ids(cdi) == std::vector<size_t>{0, 3});

  oci::Spec all;
  all.annotations["cdi.k8s.io/x"] = "nvidia.com/gpu=all";
  CHECK(ids(all).size() == 4);

  oci::Spec other;
  other.annotations["cdi.k8s.io/y"] = "vendor.com/fpga=0";
  CHECK_FALSE(may_request_gpus(other, every_device_form()));
}

TEST_CASE("identities wanted: minors and UUIDs only, anything else needs every GPU's identity") {
  oci::Spec devices;
  devices.devices = {{"/dev/nvidia2", "c", 195, 2}, {"/dev/nvidiactl", "c", 195, 255}, {"/dev/null", "c", 1, 3}};
  auto w = identities_wanted(devices, every_device_form());
  REQUIRE(w);
  CHECK(w->minors == std::vector<unsigned>{2});
  CHECK(w->uuids.empty());

  // The device plugin's CDI names and NVIDIA_VISIBLE_DEVICES UUIDs, beside the device nodes.
  oci::Spec k8s = devices;
  k8s.env = {"NVIDIA_VISIBLE_DEVICES=GPU-00000001-aaaa-bbbb-cccc-dddddddddddd"};
  k8s.annotations["cdi.k8s.io/nvidia-device-plugin_x"] = "nvidia.com/gpu=gpu-00000003-AAAA-bbbb-cccc-dddddddddddd";
  w = identities_wanted(k8s, every_device_form());
  REQUIRE(w);
  CHECK(w->minors == std::vector<unsigned>{2});
  CHECK(w->uuids == std::vector<std::string>{"GPU-00000001-aaaa-bbbb-cccc-dddddddddddd",
                                             "gpu-00000003-AAAA-bbbb-cccc-dddddddddddd"});
  CHECK(identities_wanted(with_env("NVIDIA_VISIBLE_DEVICES=void"), every_device_form()) == std::nullopt);  // nothing named
  oci::Spec plain;
  CHECK(identities_wanted(plain, every_device_form()) == std::nullopt);
  for (const char* every : {"all", "0", "1,GPU-00000001-aaaa-bbbb-cccc-dddddddddddd", "0035:03:00.0", "0:1",
                            "MIG-0b6e2b9a-5c4f-5a1e-9d3c-000000000000"}) {
    CAPTURE(every);
    oci::Spec s = with_env(std::string("NVIDIA_VISIBLE_DEVICES=") + every);
    s.devices = devices.devices;
    CHECK(identities_wanted(s, every_device_form()) == std::nullopt);
  }
  oci::Spec legacy = with_env("CUDA_VERSION=12.4");  // the legacy CUDA image: all GPUs
  CHECK(identities_wanted(legacy, every_device_form()) == std::nullopt);
  oci::Spec mount;
  mount.mounts = {{"/var/run/nvidia-container-devices/GPU-00000000-aaaa-bbbb-cccc-dddddddddddd", "/dev/null"}};
  w = identities_wanted(mount, every_device_form());
  REQUIRE(w);
  CHECK(w->uuids.size() == 1);
}

namespace {
// IdentitiesFound fed the GPUs of `inv` in order: whether every wanted one was seen by the last.
bool found_in(const IdentitiesWanted& w, const Inventory& inv) {
  IdentitiesFound found(w);
  bool all = false;
  for (const auto& g : inv.gpus) all = found.add(g);
  return all;
}
}  // namespace

TEST_CASE("identities wanted are found only when every minor and UUID is among the GPUs read") {
  Inventory read = four_gpus();
  read.gpus.resize(2);  // minors 0 and 1 read so far
  IdentitiesWanted w;
  w.minors = {1};
  CHECK(found_in(w, read));
  w.minors = {1, 2};
  CHECK_FALSE(found_in(w, read));
  CHECK(found_in(w, four_gpus()));
  w.minors = {};
  w.uuids = {"gpu-00000001-AAAA-bbbb-cccc-dddddddddddd"};  // as resolve matches it: any case
  CHECK(found_in(w, read));
  w.uuids = {"GPU-00000001-aaaa-bbbb-cccc-ddddddddddd"};  // one character short: not the same
  CHECK_FALSE(found_in(w, four_gpus()));
  // A minor asked twice is found once; the answer stays yes once every one is seen.
  w.uuids = {};
  w.minors = {2, 0, 2};
  IdentitiesFound found(w);
  CHECK_FALSE(found.add(four_gpus().gpus[0]));
  CHECK_FALSE(found.add(four_gpus().gpus[1]));
  CHECK(found.add(four_gpus().gpus[2]));
  CHECK(found.add(four_gpus().gpus[3]));
  // Whatever is found, resolve maps it to the same GPU as with every GPU read.
  oci::Spec s;
  s.devices = {{"/dev/nvidia1", "c", 195, 1}};
  CHECK(resolve_gpu_request(s, read, every_device_form()).gpus == resolve_gpu_request(s, four_gpus(), every_device_form()).gpus);
}

TEST_CASE("linux.devices: MIG capability nodes are recorded by minor, and name no GPU by themselves") {
  oci::Spec s;
  s.devices = {{"/dev/nvidia1", "c", 195, 1},
               {"/dev/nvidia-caps/nvidia-cap250", "c", 241, 250},
               {"/dev/nvidia-caps/nvidia-cap53", "c", 241, 53},
               {"/dev/nvidia-caps/nvidia-cap53", "c", 241, 53},
               {"/dev/nvidia-caps/nvidia-cap7", "b", 241, 7},      // not a character device
               {"/dev/nvidia-capsule", "c", 241, 8},                // another name
               {"/dev/nvidia-caps/nvidia-cap9", "c", 241, -1}};     // no minor
  auto req = resolve_gpu_request(s, four_gpus(), every_device_form());
  CHECK(req.mig_capability_minors == std::vector<unsigned>{53, 250});
  CHECK(req.gpus == std::vector<size_t>{1});
  CHECK(req.whole.empty());

  oci::Spec only_caps;
  only_caps.devices = {{"/dev/nvidia-caps/nvidia-cap53", "c", 241, 53}};
  CHECK_FALSE(may_request_gpus(only_caps, every_device_form()));
}
