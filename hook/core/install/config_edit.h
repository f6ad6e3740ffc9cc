// `gpu-numa-hook install`: the edits it makes, as pure functions (the file's text in, the new text
// out), so each is unit-tested on sample files and the host side only reads, backs up and writes.
// Here: what every engine shares, and the files that are not an engine's (hooks.d, NVIDIA's legacy
// config, our own config). Each engine's edit is behind engine_config.h. Every edit is idempotent,
// and a file that does not parse is a Failure naming the file and the line.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gnh {

constexpr const char* kRuntimeName = "gpu-numa";  // the runtime name in daemon.json and containerd

struct InstallOptions {
  std::string runtime_path = "/usr/bin/gpu-numa-runtime";
  std::string hook_path = "/usr/bin/gpu-numa-hook";
  bool set_default = false;
  bool uninstall = false;
  // Uninstall: the default runtime install displaced (from our install state), put back when the
  // default is still ours; "" = none recorded (the default key is removed).
  std::string restore_default = {};
};

// What an engine's file says about the runtimes install works with, read by the edit.
struct EngineRuntimes {
  std::string default_runtime;  // the engine's default runtime name ("" = the engine's built-in)
  std::string base_runtime;     // containerd/CRI-O: the entry ours was copied from
  // NVIDIA's runtime (a name starting "nvidia", or a binary named nvidia-container-runtime*),
  // preferring the default: the binary the shim must chain to so NVIDIA's spec edits still happen.
  // "" = none configured.
  std::string nvidia_binary;
};

// Whether a runtime is NVIDIA's, by its name or its binary's file name.
bool is_nvidia_runtime(std::string_view name, std::string_view binary);

// The oci-hooks(5) file podman and CRI-O read from their hooks_dir; "" on uninstall.
std::string hooks_d_file_text(const InstallOptions& o);
// Whether `text` is a hooks.d file install wrote, whatever hook path it was given (--hook-path):
// byte for byte what hooks_d_file_text writes for the path the file names. Uninstall removes such
// a file without being told that path again; anything else in it is the operator's and stays.
bool is_our_hooks_d_file(std::string_view text);

// nvidia-container-runtime's config.toml in legacy mode: [nvidia-container-runtime-hook] path =
// our hook. `previous_hook` receives the path it had (NVIDIA's hook, which our [chain] next-hook
// must name); on uninstall `restore_hook` is put back.
std::string edit_nvidia_runtime_config(std::string_view text, const std::string& file, const InstallOptions& o,
                                       std::string* previous_hook, const std::string& restore_hook);

// Our own config.toml, edited as text so its comments survive (it is a conffile the operator
// reads): the [chain] section's next-hook line set to `next_hook` ("" to turn chaining off).
std::string set_chain_next_hook(std::string_view our_config, const std::string& next_hook);
// Our config.toml's [runtime] next, edited as text like set_chain_next_hook: the line replaced (a
// multi-line array too) or added, every other line kept.
std::string set_runtime_next(std::string_view our_config, const std::vector<std::string>& next);
// The current [runtime] next of our config text (empty when unset).
std::vector<std::string> runtime_next(std::string_view our_config, const std::string& file);
// Our config.toml's [runtime] hook (the hook the shim registers), edited as text like
// set_chain_next_hook; `hook` "" removes the line (the built-in default applies).
std::string set_runtime_hook(std::string_view our_config, const std::string& hook);
// The current [runtime] hook of our config text; nullopt when unset.
std::optional<std::string> runtime_hook(std::string_view our_config, const std::string& file);
// The current [chain] next-hook value in our config text ("" when unset).
std::string chain_next_hook(std::string_view our_config, const std::string& file);

// A unified diff (3 lines of context) from `before` to `after`, headed with the two names; ""
// when equal.
std::string unified_diff(std::string_view before, std::string_view after, const std::string& from_name,
                         const std::string& to_name);

}  // namespace gnh
