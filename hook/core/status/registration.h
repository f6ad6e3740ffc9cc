// What an engine's file says about our registration, read from its text: the runtime shim in
// Docker's daemon.json, containerd's and CRI-O's TOML; the hook in an oci-hooks(5) file and in
// nvidia-container-runtime's config.toml (legacy mode). Pure: `status` reads the files.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gnh {

struct RegistrationEntry {
  std::string binary;        // the program the engine runs: the shim (runtimes) or the hook
  bool is_default = false;   // runtimes: gpu-numa is the engine's default runtime
  std::string default_name;  // runtimes: the default the file names ("" = the engine's own, runc)
};

// Each returns nullopt when the text does not register us, and throws gnh::Error naming the file
// when it does not parse.
std::optional<RegistrationEntry> docker_registration(std::string_view text, const std::string& file);
// containerd (runtimes.gpu-numa.options.BinaryName, default_runtime_name) and CRI-O
// (crio.runtime.runtimes.gpu-numa.runtime_path, default_runtime): any table named gpu-numa under
// a `runtimes` table, wherever the version puts it.
std::optional<RegistrationEntry> toml_runtime_registration(std::string_view text, const std::string& file);
// A containerd file read after our drop-in (install/containerd_load_order.h), as it bears on the
// gpu-numa runtime: whether it holds a CRI plugin table (containerd 1.x then replaces ours whole)
// and the default runtime it names ("" = none). nvidia-ctk runtime configure run after install adds
// such a file: its conf.d glob lands after our entry.
struct LaterContainerdFile {
  bool defines_cri_table = false;
  std::string default_name;
};
LaterContainerdFile later_containerd_file(std::string_view text, const std::string& file);
// NVIDIA's runtime among a containerd or CRI-O file's runtimes (a name starting "nvidia" or a
// binary nvidia-container-runtime*, the one named `nvidia` first): its binary (options.BinaryName,
// runtime_path), "" when the file has none. What the shim must run next for pods to keep NVIDIA's
// spec edits.
std::string nvidia_runtime_binary(std::string_view text, const std::string& file);
// An oci-hooks(5) JSON file: its hook.path when its args run us (gpu-numa-hook prestart).
std::optional<RegistrationEntry> hooks_d_registration(std::string_view text, const std::string& file);
// nvidia-container-runtime's config.toml: [nvidia-container-runtime-hook] path when it names a
// gpu-numa-hook binary (install --runtime nvidia-legacy).
std::optional<RegistrationEntry> nvidia_legacy_registration(std::string_view text, const std::string& file);

}  // namespace gnh
