// `install --runtime nri`: what the runtimes need for the NRI plugin (gpu-numa-nri), text in, text
// out. containerd 2.x has NRI on unless a file turns it off; 1.7 has it off unless
// [plugins."io.containerd.nri.v1.nri"] disable = false. CRI-O 1.30 and later have it on; earlier
// ones need [crio.nri] enable_nri = true. No runtime entry, no RuntimeClass, no default runtime.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "install/engine_config.h"

namespace gnh {

constexpr const char* kContainerdNriPlugin = "io.containerd.nri.v1.nri";
constexpr const char* kContainerdNriDropin = "conf.d/99-zz-gpu-numa-nri.toml";  // beside the main file
constexpr const char* kCrioNriDropin = "99-gpu-numa-nri.conf";                  // in crio.conf.d
constexpr const char* kNriPreregisteredName = "99-gpu-numa";                    // in /opt/nri/plugins

// Whether NRI is on with this main file alone for a containerd of `major` release (1 or 2; 0 when
// unknown counts as 1, the cautious answer). Failure when the text is not TOML.
bool containerd_nri_enabled(std::string_view main_text, const std::string& file, int major);

// Our drop-in turning NRI on: the main file's NRI table, every key kept (containerd 1.x replaces a
// plugin's whole table with an imported file's), with disable = false; the main file's version.
std::string containerd_nri_dropin(std::string_view main_text, const std::string& file);

// NRI's default validator (containerd 2.2 and later): [plugins."io.containerd.nri.v1.nri".default_validator].
// With enable and reject_oci_hook_adjustment, every container an NRI plugin adds an OCI hook to
// fails to create; required_plugins makes every container fail while a named plugin is absent.
struct NriValidatorSettings {
  bool enable = false;
  bool reject_oci_hook_adjustment = false;
  std::vector<std::string> required_plugins;
  std::string file;  // the last file that set any of these ("" none)
};
// Folds one containerd file's settings into *v, key by key (containerd 2.x merges plugin tables
// that way; files in the order containerd reads them). Failure when the text is not TOML.
void read_containerd_nri_validator(std::string_view text, const std::string& file, NriValidatorSettings* v);

// CRI-O's drop-in: [crio.nri] enable_nri = true.
std::string crio_nri_dropin();

// The pre-registered plugin: a script the runtime runs from its plugin directory at start, with
// the connection on NRI_PLUGIN_SOCKET; it execs gpu-numa-nri with our hook's path.
// With `socket` (the runtime's NRI socket when it is not the default), the plugin is told where to
// dial if the runtime's connection drops: it then goes on as an external plugin.
std::string nri_preregistered_script(const std::string& plugin_path, const std::string& hook_path,
                                     const std::string& socket = "");

// containerd's NRI socket_path: the last of containerd's files in its load order
// (containerd_load_order.h) that sets it, "" when none does. An import of our own drop-in or
// nvidia-ctk's conf.d may set it, not only the main file. containerd 2.x merges plugin tables key
// by key, so that is exact there; 1.x replaces the main file's NRI table with an import's whole
// table, so an import's NRI table without socket_path would bring back the default: not modelled,
// the last setter still wins (our own drop-in copies the main file's NRI table, keys and all).
// `root` as for containerd_load_order. A Failure when a file is not TOML.
std::string containerd_nri_socket(const std::string& main, const ConfigReader& files, const std::string& root = "");

}  // namespace gnh
