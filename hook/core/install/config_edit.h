// `gpu-numa-hook install`: the edits it makes to each engine's configuration, as pure functions
// (the file's text in, the new text out), so each is unit-tested on sample files and the host side
// only reads, backs up and writes. Every edit is idempotent: installing twice gives the same text,
// and uninstall removes exactly the entries install adds. A file that does not parse is a Failure
// naming the file and the line.
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
  std::string base_runtime;     // containerd/CRI-O: the entry ours was copied from ("" = none)
  // NVIDIA's runtime (a name starting "nvidia", or a binary named nvidia-container-runtime*),
  // preferring the default: the binary the shim must chain to so NVIDIA's spec edits still happen.
  // "" = none configured.
  std::string nvidia_binary;
};

// Whether a runtime is NVIDIA's, by its name or its binary's file name.
bool is_nvidia_runtime(std::string_view name, std::string_view binary);

// Docker's daemon.json ("" = the file is missing): runtimes.gpu-numa = {path}; --set-default sets
// default-runtime. Every other key is kept in its order. Uninstall removes our runtime, and
// default-runtime when it names it.
std::string edit_docker_daemon_json(std::string_view text, const std::string& file, const InstallOptions& o,
                                    EngineRuntimes* seen = nullptr);

// containerd's config.toml ("" = missing, written as a version 2 config): the CRI plugin's
// containerd.runtimes.gpu-numa, a copy of the base runtime's whole entry (default_runtime_name
// unless it is NVIDIA's, else runc, else crun: SystemdCgroup and every other option come along, as
// nvidia-ctk does), with options.BinaryName = the shim and runtime_type set if missing;
// --set-default sets containerd.default_runtime_name. The plugin key follows the file's version
// (containerd_cri_plugin). toml++ re-emits the file: comments are not kept (the dry run says so).
std::string edit_containerd_config(std::string_view text, const std::string& file, const InstallOptions& o,
                                   EngineRuntimes* seen = nullptr);
// The CRI plugin's key for a config version: 1 "cri", 2 "io.containerd.grpc.v1.cri", 3 and later
// (containerd 2.x) "io.containerd.cri.v1.runtime".
std::string containerd_cri_plugin(long long version);
// A containerd file's `version` (1 when absent, as containerd reads it; 2 for an empty file, which
// install writes as version 2).
long long containerd_config_version(std::string_view text, const std::string& file);
// The file's top-level `imports` (empty when none), and whether a file defines any table of a CRI
// plugin (any version's key): containerd 1.x replaces the main file's whole plugin table with an
// imported file's (containerd issue 5837), so an entry in the main file would be ignored.
std::vector<std::string> containerd_imports(std::string_view text, const std::string& file);
bool containerd_defines_cri(std::string_view text, const std::string& file);
// NVIDIA's runtime binary in a containerd file's CRI runtimes (any version's key; the file's
// default first), "" when none: an imported drop-in (nvidia-ctk's) can hold it.
std::string containerd_nvidia_binary(std::string_view text, const std::string& file);

// CRI-O's runtime for the shim: our whole drop-in (crio.conf.d/99-gpu-numa.toml), given CRI-O's
// files in the order it reads them (crio.conf, then crio.conf.d/*.toml): [crio.runtime.runtimes.
// gpu-numa] is a copy of the base runtime (default_runtime unless NVIDIA's, else runc, else crun)
// with runtime_path = the shim and runtime_type = "oci"; --set-default adds default_runtime. ""
// on uninstall (the file goes).
std::string crio_runtime_dropin(const std::vector<std::pair<std::string, std::string>>& files, const InstallOptions& o,
                                EngineRuntimes* seen = nullptr);
// Whether our drop-in makes gpu-numa CRI-O's default (an earlier --set-default, kept by a re-run).
bool crio_dropin_is_default(std::string_view our_dropin, const std::string& file);

// The oci-hooks(5) file podman and CRI-O read from their hooks_dir; "" on uninstall.
std::string hooks_d_file_text(const InstallOptions& o);

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
// The current [chain] next-hook value in our config text ("" when unset).
std::string chain_next_hook(std::string_view our_config, const std::string& file);

// A unified diff (3 lines of context) from `before` to `after`, headed with the two names; ""
// when equal.
std::string unified_diff(std::string_view before, std::string_view after, const std::string& from_name,
                         const std::string& to_name);

}  // namespace gnh
