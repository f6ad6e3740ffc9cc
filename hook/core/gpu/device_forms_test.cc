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

TEST_CASE("device forms: NVIDIA's hook with -config elsewhere: its -config argument found, unknown settings count both forms") {
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

namespace {

// The wrapper nvidia-ctk-installer 1.20.0 writes for the hook with --toolkit-install-dir
// /usr/local/nvidia (tests/fixtures/nvidia-ctk-installer-1.20.0/nvidia-container-runtime-hook).
constexpr const char* kInstallerWrapper =
    "#! /bin/sh\n"
    "NVIDIA_CTK_CONFIG_FILE_PATH=/usr/local/nvidia/toolkit/.config/nvidia-container-runtime/config.toml \\\n"
    "PATH=/usr/local/nvidia/toolkit:$PATH \\\n"
    "\t/usr/local/nvidia/toolkit/nvidia-container-runtime-hook.real \\\n"
    "\t\t\"$@\"\n";
const oci::Hook kOperatorHook{"prestart", "/usr/local/nvidia/toolkit/nvidia-container-runtime-hook",
                              {"nvidia-container-runtime-hook", "prestart"}};

Inventory two_gpus() {
  Inventory inv;
  for (unsigned i = 0; i < 2; ++i) {
    Gpu g;
    g.minor = i;
    g.bus_id = "0000:0" + std::to_string(i) + ":00.0";
    g.uuid = "GPU-" + std::to_string(i) + "b1e9f2c-0000-0000-0000-000000000000";
    inv.gpus.push_back(g);
  }
  return inv;
}

}  // namespace

TEST_CASE("device forms: the config.toml a toolkit wrapper hands NVIDIA's hook") {
  CHECK(wrapper_config_path(kInstallerWrapper) ==
        std::optional<std::string>("/usr/local/nvidia/toolkit/.config/nvidia-container-runtime/config.toml"));
  CHECK(wrapper_config_path("#!/bin/sh\nexport NVIDIA_CTK_CONFIG_FILE_PATH=\"/opt/nv/my config.toml\"\nexec x\n") ==
        std::optional<std::string>("/opt/nv/my config.toml"));
  // not a wrapper, or one we cannot read a plain path from
  CHECK_FALSE(wrapper_config_path(std::string("\x7f" "ELF\x02\x01\x01", 7)));
  CHECK_FALSE(wrapper_config_path("#!/bin/sh\nexec /usr/bin/nvidia-container-runtime-hook.real \"$@\"\n"));
  CHECK_FALSE(wrapper_config_path("#!/bin/sh\nNVIDIA_CTK_CONFIG_FILE_PATH=$HOME/c.toml x\n"));
  CHECK_FALSE(wrapper_config_path("#!/bin/sh\nNVIDIA_CTK_CONFIG_FILE_PATH=relative/c.toml x\n"));
  CHECK_FALSE(wrapper_config_path("#!/bin/sh\nMY_NVIDIA_CTK_CONFIG_FILE_PATH=/x.toml x\n"));
  CHECK_FALSE(wrapper_config_path("NVIDIA_CTK_CONFIG_FILE_PATH=/x.toml\n"));  // no #!: not a script
}

TEST_CASE("device forms: where NVIDIA's hook reads its settings: -config, its wrapper, or /etc") {
  oci::Spec s = with_hooks({kOperatorHook});
  VisibleDevicesReader r = visible_devices_reader(s, "");
  NvidiaConfigLocation l = nvidia_config_location(r, std::string_view(kInstallerWrapper));
  CHECK(l.path == "/usr/local/nvidia/toolkit/.config/nvidia-container-runtime/config.toml");
  CHECK(l.named);
  // an ELF hook, or one not read: NVIDIA's default path, whose absence means NVIDIA's defaults
  l = nvidia_config_location(r, std::nullopt);
  CHECK(l.path == kNvidiaConfigPath);
  CHECK_FALSE(l.named);
  // -config wins over what a wrapper says
  s = with_hooks({{"prestart", kOperatorHook.path, {"nvidia-container-runtime-hook", "-config=/x/c.toml", "prestart"}}});
  r = visible_devices_reader(s, "");
  l = nvidia_config_location(r, std::string_view(kInstallerWrapper));
  CHECK(l.path == "/x/c.toml");
  CHECK(l.named);
}

TEST_CASE("device forms: NVIDIA_VISIBLE_DEVICES naming the volume-mount folder counts the mounts") {
  CHECK(names_device_mount_folder("/var/run/nvidia-container-devices"));
  CHECK(names_device_mount_folder("/var/run/nvidia-container-devices/"));
  CHECK(names_device_mount_folder(" /var/run/nvidia-container-devices "));
  CHECK_FALSE(names_device_mount_folder("/var/run/nvidia-container-devices/0"));
  CHECK_FALSE(names_device_mount_folder("/run/nvidia-container-devices"));
  CHECK_FALSE(names_device_mount_folder("all"));

  // The device plugin's volume-mounts strategy: the variable names the folder, one /dev/null
  // mount per device id, by UUID or by index.
  const Inventory inv = two_gpus();
  for (const std::string id : {"1", "GPU-1b1e9f2c-0000-0000-0000-000000000000"}) {
    CAPTURE(id);
    oci::Spec s = with_hooks({kOperatorHook}, {"NVIDIA_VISIBLE_DEVICES=/var/run/nvidia-container-devices"});
    s.mounts.push_back({"/var/run/nvidia-container-devices/" + id, "/dev/null"});
    const VisibleDevicesReader r = visible_devices_reader(s, "");
    // settings as the operator's hardened toolkit writes them: the mounts are NVIDIA's answer
    NvidiaHookSettings hardened;
    hardened.accept_volume_mounts = true;
    hardened.accept_env_unprivileged = false;
    // NVIDIA's defaults (volume mounts off): its settings may have been read wrongly; the folder
    // named still counts the mounts, and the log says so
    NvidiaHookSettings defaults;
    defaults.source = "/etc/nvidia-container-runtime/config.toml (absent: NVIDIA's defaults)";
    for (const auto& forms : {device_forms(s, r, hardened), device_forms(s, r, defaults), device_forms(s, r, std::nullopt),
                              every_device_form()}) {
      CAPTURE(forms.why);
      CHECK(forms.mounts);
      CHECK(may_request_gpus(s, forms));
      const GpuRequest req = resolve_gpu_request(s, inv, forms);
      CHECK(req.gpus == std::vector<size_t>{1});
      CHECK(req.unresolved.empty());  // the folder is not a GPU that this host lacks
    }
    const DeviceForms d = device_forms(s, r, defaults);
    CHECK_FALSE(d.env);
    CHECK(d.why.find("names the volume-mount folder, so its mounts count") != std::string::npos);
    CHECK(d.why.find("(settings: /etc/nvidia-container-runtime/config.toml (absent: NVIDIA's defaults))") !=
          std::string::npos);
    // a GPU-<uuid> mount is found by identity alone; the folder asks for no other
    if (id != "1") {
      auto want = identities_wanted(s, d);
      REQUIRE(want);
      CHECK(want->uuids == std::vector<std::string>{id});
    }
  }
}
