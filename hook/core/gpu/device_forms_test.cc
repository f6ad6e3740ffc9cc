// Who reads NVIDIA_VISIBLE_DEVICES, and so whether it gives the container a GPU.
#include "gpu/device_forms.h"

#include <doctest/doctest.h>

#include "gpu/gpu_request.h"

using namespace gnh;

namespace {

using Kind = VisibleDevicesReader::Kind;

oci::Spec with_hooks(std::vector<oci::Hook> hooks, std::vector<std::string> env = {"NVIDIA_VISIBLE_DEVICES=0"}) {
  oci::Spec s;
  s.env = std::move(env);
  s.hooks = std::move(hooks);
  return s;
}
const oci::Hook kNvidiaHook{"prestart", "/usr/bin/nvidia-container-runtime-hook", {"nvidia-container-runtime-hook", "prestart"}};
const oci::Hook kOurs{"createRuntime", "/usr/bin/gpu-numa-hook", {"gpu-numa-hook", "createRuntime"}};
const oci::Hook kDockerNetwork{"prestart", "/proc/1234/exe", {"libnetwork-setkey", "-exec-root=/var/run/docker", "abc", "def"}};
const oci::Hook kCdiHook{"createContainer", "/usr/bin/nvidia-cdi-hook", {"nvidia-cdi-hook", "update-ldcache"}};
const oci::Hook kCtkHook{"createContainer", "/usr/bin/nvidia-ctk", {"nvidia-ctk", "hook", "create-symlinks"}};

}  // namespace

TEST_CASE("device forms: with no hook to read it, NVIDIA_VISIBLE_DEVICES gives no GPU") {
  // a CUDA image (NVIDIA_VISIBLE_DEVICES=all, CUDA_VERSION) on a CDI-only node, behind Docker,
  // our hook and NVIDIA's CDI hooks: none of them reads the variable
  for (const auto& hooks : std::vector<std::vector<oci::Hook>>{{}, {kOurs}, {kDockerNetwork, kOurs}, {kCdiHook, kCtkHook}}) {
    oci::Spec s = with_hooks(hooks, {"NVIDIA_VISIBLE_DEVICES=all", "CUDA_VERSION=12.4.1"});
    s.mounts.push_back({"/var/run/nvidia-container-devices/0", "/dev/null"});
    const VisibleDevicesReader r = visible_devices_reader(s, "");
    CHECK(r.kind == Kind::none);
    const DeviceForms f = device_forms(s, r, std::nullopt);
    CHECK_FALSE(f.env);
    CHECK_FALSE(f.mounts);
    CHECK_FALSE(may_request_gpus(s, f));
    CHECK(f.why.find("no hook in the spec reads NVIDIA_VISIBLE_DEVICES") == 0);
    CHECK(may_request_gpus(s, every_device_form()));
  }
}

TEST_CASE("device forms: linux.devices and CDI annotations count whoever reads the variable") {
  oci::Spec s = with_hooks({}, {});
  s.devices.push_back({"/dev/nvidia0", "c", 195, 0});
  const DeviceForms none = device_forms(s, visible_devices_reader(s, ""), std::nullopt);
  CHECK(may_request_gpus(s, none));
  oci::Spec a = with_hooks({}, {});
  a.annotations["cdi.k8s.io/gpu"] = "nvidia.com/gpu=0";
  CHECK(may_request_gpus(a, device_forms(a, visible_devices_reader(a, ""), std::nullopt)));
}

TEST_CASE("device forms: NVIDIA's legacy hook, by NVIDIA's own test of its name, reads the variable") {
  for (const char* path : {"/usr/bin/nvidia-container-runtime-hook", "/usr/local/nvidia/toolkit/nvidia-container-runtime-hook",
                           "/usr/bin/nvidia-container-toolkit"}) {
    CAPTURE(path);
    oci::Spec s = with_hooks({kDockerNetwork, {"prestart", path, {"x", "prestart"}}, kOurs});
    const VisibleDevicesReader r = visible_devices_reader(s, "");
    CHECK(r.kind == Kind::nvidia_hook);
    CHECK(r.path == path);
    CHECK_FALSE(r.config);
    // NVIDIA's defaults: the variable counts, the volume-mount list does not
    const DeviceForms f = device_forms(s, r, NvidiaHookSettings{});
    CHECK(f.env);
    CHECK_FALSE(f.mounts);
    CHECK(may_request_gpus(s, f));
  }
  // our [chain] next-hook runs NVIDIA's hook itself
  const oci::Spec s = with_hooks({kOurs});
  const VisibleDevicesReader chained = visible_devices_reader(s, "/usr/bin/nvidia-container-runtime-hook");
  CHECK(chained.kind == Kind::nvidia_hook);
  CHECK(may_request_gpus(s, device_forms(s, chained, NvidiaHookSettings{})));
}

TEST_CASE("device forms: a hook we do not know may read the variable: both forms count") {
  oci::Spec s = with_hooks({kOurs, {"prestart", "/opt/vendor/gpu-wrapper", {"gpu-wrapper"}}});
  s.mounts.push_back({"/var/run/nvidia-container-devices/0", "/dev/null"});
  const VisibleDevicesReader r = visible_devices_reader(s, "");
  CHECK(r.kind == Kind::unknown_hook);
  const DeviceForms f = device_forms(s, r, std::nullopt);
  CHECK(f.env);
  CHECK(f.mounts);
  CHECK(f.why == "hook /opt/vendor/gpu-wrapper may read NVIDIA_VISIBLE_DEVICES");
  // NVIDIA's, later in the list, is the one that decides
  s.hooks.push_back(kNvidiaHook);
  CHECK(visible_devices_reader(s, "").kind == Kind::nvidia_hook);
  // a chained hook we do not know
  CHECK(visible_devices_reader(with_hooks({}), "/opt/bin/other-hook").kind == Kind::unknown_hook);
}

TEST_CASE("device forms: NVIDIA's hook with -config elsewhere: its settings are not read, both forms count") {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"nvidia-container-runtime-hook", "-config", "/x/config.toml", "prestart"},
        {"nvidia-container-runtime-hook", "--config=/x/config.toml", "prestart"}}) {
    const oci::Spec s = with_hooks({{"prestart", "/usr/bin/nvidia-container-runtime-hook", args}});
    const VisibleDevicesReader r = visible_devices_reader(s, "");
    REQUIRE(r.config);
    CHECK(*r.config == "/x/config.toml");
    const DeviceForms f = device_forms(s, r, std::nullopt);
    CHECK(f.env);
    CHECK(f.mounts);
  }
}

TEST_CASE("device forms: NVIDIA's rules for unprivileged containers and the volume-mount list") {
  oci::Spec s = with_hooks({kNvidiaHook});
  const VisibleDevicesReader r = visible_devices_reader(s, "");
  NvidiaHookSettings strict;
  strict.accept_env_unprivileged = false;
  // unprivileged: the variable is ignored, and the container gets no GPU
  DeviceForms f = device_forms(s, r, strict);
  CHECK_FALSE(f.env);
  CHECK_FALSE(may_request_gpus(s, f));
  CHECK(f.why.find("accept-nvidia-visible-devices-envvar-when-unprivileged = false") != std::string::npos);
  // privileged (CAP_SYS_ADMIN in the bounding set, NVIDIA's test): it counts
  s.bounding_capabilities = {"CAP_CHOWN", "CAP_SYS_ADMIN"};
  CHECK(device_forms(s, r, strict).env);
  // the volume-mount list, accepted and present, is used instead of the variable
  NvidiaHookSettings mounts;
  mounts.accept_volume_mounts = true;
  s.mounts.push_back({"/var/run/nvidia-container-devices/1", "/dev/null"});
  f = device_forms(s, r, mounts);
  CHECK(f.mounts);
  CHECK_FALSE(f.env);
  Inventory inv;
  for (unsigned i = 0; i < 2; ++i) {
    Gpu g;
    g.minor = i;
    g.bus_id = "0000:0" + std::to_string(i) + ":00.0";
    inv.gpus.push_back(g);
  }
  CHECK(resolve_gpu_request(s, inv, f).gpus == std::vector<size_t>{1});
  // not accepted: NVIDIA ignores the list and reads the variable
  f = device_forms(s, r, NvidiaHookSettings{});
  CHECK(resolve_gpu_request(s, inv, f).gpus == std::vector<size_t>{0});
}

TEST_CASE("device forms: NVIDIA's config.toml keys, its defaults, and text that decides nothing") {
  auto d = nvidia_hook_settings("");
  REQUIRE(d);
  CHECK(d->accept_env_unprivileged);
  CHECK_FALSE(d->accept_volume_mounts);
  auto s = nvidia_hook_settings(
      "#accept-nvidia-visible-devices-as-volume-mounts = true\n"
      "accept-nvidia-visible-devices-envvar-when-unprivileged = false\n"
      "accept-nvidia-visible-devices-as-volume-mounts = true\n"
      "[nvidia-container-runtime]\nmode = \"legacy\"\n[nvidia-container-runtime.modes.cdi]\ndefault-kind = \"nvidia.com/gpu\"\n");
  REQUIRE(s);
  CHECK_FALSE(s->accept_env_unprivileged);
  CHECK(s->accept_volume_mounts);
  CHECK_FALSE(nvidia_hook_settings("accept-nvidia-visible-devices-envvar-when-unprivileged = \"no\"\n"));
  CHECK_FALSE(nvidia_hook_settings("a = [}\n"));
  CHECK_FALSE(nvidia_hook_settings("[[[\n"));
}
