// `gpu-numa-hook install`: the edits it makes to each engine's configuration, as pure functions
// (the file's text in, the new text out), so each is unit-tested on sample files and the host side
// only reads, backs up and writes. Every edit is idempotent: installing twice gives the same text,
// and uninstall removes exactly the entries install adds. A file that does not parse is a Failure
// naming the file and the line.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gnh {

constexpr const char* kRuntimeName = "gpu-numa";  // the runtime name in daemon.json and containerd

struct InstallOptions {
  std::string runtime_path = "/usr/bin/gpu-numa-runtime";
  std::string hook_path = "/usr/bin/gpu-numa-hook";
  bool set_default = false;
  bool uninstall = false;
};

// Docker's daemon.json ("" = the file is missing): runtimes.gpu-numa = {path}; --set-default sets
// default-runtime. Every other key is kept in its order. Uninstall removes our runtime, and
// default-runtime when it names it.
std::string edit_docker_daemon_json(std::string_view text, const std::string& file, const InstallOptions& o);

// containerd's config.toml ("" = missing, written as a version 2 config): the CRI plugin's
// containerd.runtimes.gpu-numa = {runtime_type = "io.containerd.runc.v2", options.BinaryName};
// --set-default sets containerd.default_runtime_name. Version 2 configs use the plugin
// "io.containerd.grpc.v1.cri", version 1 (no version key) "cri". toml++ re-emits the file:
// comments are not kept (the dry run says so).
std::string edit_containerd_config(std::string_view text, const std::string& file, const InstallOptions& o);

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
// The current [chain] next-hook value in our config text ("" when unset).
std::string chain_next_hook(std::string_view our_config, const std::string& file);

// A unified diff (3 lines of context) from `before` to `after`, headed with the two names; ""
// when equal.
std::string unified_diff(std::string_view before, std::string_view after, const std::string& from_name,
                         const std::string& to_name);

}  // namespace gnh
