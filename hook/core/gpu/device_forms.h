// Which of a config.json's GPU forms give the container a GPU. linux.devices and NVIDIA's CDI
// annotations always do. NVIDIA_VISIBLE_DEVICES (with a legacy CUDA image's implicit "all") and
// its volume-mount list give one only where NVIDIA's legacy hook reads them at the start: legacy
// mode and docker --gpus put nvidia-container-runtime-hook in the spec's prestart hooks. NVIDIA's
// CDI modes turn the variable into linux.devices before the container is created (and set it to
// "void"); a CDI-only node, or an engine without NVIDIA's runtime, ignores it. CUDA images set
// NVIDIA_VISIBLE_DEVICES=all, so counting it there would widen a container without a GPU by the
// GPU memory nodes (on Grace: the HBM nodes, as ordinary memory) and override its pinning.
// Pure: the spec's hooks, and NVIDIA's hook settings once read, in; the forms that count out.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "spec.h"

namespace gnh {

struct DeviceForms {
  bool env = true;     // NVIDIA_VISIBLE_DEVICES, a legacy CUDA image's implicit "all"
  bool mounts = true;  // /var/run/nvidia-container-devices/<reference>
  // Why the two above are off or on, for the fast path's log line; "" when both count with no
  // reader known (the NRI plugin's view, before the runtime has added its hooks).
  std::string why;
};

// Every form counts: for a view of the container before the runtime adds NVIDIA's hook (the NRI
// plugin at CreateContainer), where erring towards the hook is the safe side.
DeviceForms every_device_form();

// Who will read NVIDIA_VISIBLE_DEVICES at this container's start.
struct VisibleDevicesReader {
  enum class Kind {
    none,         // no hook but ours and ones known to read no GPU variable: nothing will
    nvidia_hook,  // NVIDIA's legacy hook (by NVIDIA's own test: the program's name)
    unknown_hook  // a hook we do not know: it may give GPUs from the variable
  };
  Kind kind = Kind::none;
  std::string path;                  // the hook's path (the chained hook's, for [chain] next-hook)
  std::optional<std::string> config;  // NVIDIA's hook: its -config argument, when given
};

// From the spec's hooks and our own [chain] next-hook (our hook then runs `next_hook` itself). A
// known NVIDIA hook wins over an unknown one. Ours (gpu-numa-hook), NVIDIA's CDI hooks
// (nvidia-cdi-hook, nvidia-ctk) and Docker's network hook (libnetwork-setkey) read no GPU variable.
VisibleDevicesReader visible_devices_reader(const oci::Spec& spec, std::string_view next_hook);

// What NVIDIA's hook accepts (its config.toml's top-level keys, NVIDIA's defaults when unset).
struct NvidiaHookSettings {
  bool accept_env_unprivileged = true;  // accept-nvidia-visible-devices-envvar-when-unprivileged
  bool accept_volume_mounts = false;    // accept-nvidia-visible-devices-as-volume-mounts
  std::string source;                   // the file they came from, for the log ("" in unit cases)
};
// nullopt when the text is not TOML or a key is not a boolean (the hook then errs towards
// counting both forms).
std::optional<NvidiaHookSettings> nvidia_hook_settings(std::string_view config_toml);

// The forms that count for `spec`, read by `reader`. For NVIDIA's hook, `settings` as its
// config.toml gives them (nullopt: unknown, both forms count), with NVIDIA's own rules: the
// volume-mount list, when accepted and present, is used instead of the variable; the variable
// counts for a privileged container (CAP_SYS_ADMIN in its bounding set) or where accepted from
// unprivileged ones.
DeviceForms device_forms(const oci::Spec& spec, const VisibleDevicesReader& reader,
                         const std::optional<NvidiaHookSettings>& settings);

// NVIDIA's hook's config.toml path when it is given none (/etc/nvidia-container-runtime/config.toml).
constexpr const char* kNvidiaConfigPath = "/etc/nvidia-container-runtime/config.toml";

// The config.toml a toolkit wrapper script hands NVIDIA's program: the GPU operator's toolkit
// container installs each program as a /bin/sh wrapper around a *.real copy, which sets
// NVIDIA_CTK_CONFIG_FILE_PATH=<dir>/.config/nvidia-container-runtime/config.toml, and the spec
// names the wrapper, with no -config. nullopt when `script` is not such a script (an ELF program,
// a script setting no absolute path).
std::optional<std::string> wrapper_config_path(std::string_view script);

// Where NVIDIA's hook `reader` reads its settings: its -config argument, else what its wrapper
// script (`hook_text`, the hook file's first bytes; nullopt when unread) hands it, else
// kNvidiaConfigPath. `named` says whether the path was given (-config or a wrapper): such a file,
// absent, leaves the settings unknown; an absent kNvidiaConfigPath is NVIDIA's defaults.
struct NvidiaConfigLocation {
  std::string path;
  bool named = false;
};
NvidiaConfigLocation nvidia_config_location(const VisibleDevicesReader& reader,
                                            std::optional<std::string_view> hook_text);

// Whether NVIDIA_VISIBLE_DEVICES's value is the volume-mount folder itself (the device plugin's
// volume-mounts strategy: /var/run/nvidia-container-devices): then it names no GPU but points
// at the mount list, which counts wherever a hook reads the variable, whatever the hook's settings
// say, so that a container is never left unprotected by settings we read wrongly.
bool names_device_mount_folder(std::string_view value);

}  // namespace gnh
