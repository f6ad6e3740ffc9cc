// `install --runtime nri`: what the runtimes need for the NRI plugin (gpu-numa-nri), text in, text
// out. containerd 2.x has NRI on unless a file turns it off; 1.7 has it off unless
// [plugins."io.containerd.nri.v1.nri"] disable = false. CRI-O 1.30 and later have it on; earlier
// ones need [crio.nri] enable_nri = true. No runtime entry, no RuntimeClass, no default runtime.
#pragma once

#include <string>
#include <string_view>

namespace gnh {

constexpr const char* kContainerdNriPlugin = "io.containerd.nri.v1.nri";
constexpr const char* kContainerdNriDropin = "conf.d/99-zz-gpu-numa-nri.toml";  // beside the main file
constexpr const char* kCrioNriDropin = "99-gpu-numa-nri.conf";                  // in crio.conf.d
constexpr const char* kNriPreregisteredName = "10-gpu-numa";                    // in /opt/nri/plugins

// Whether NRI is on with this main file alone for a containerd of `major` release (1 or 2; 0 when
// unknown counts as 1, the cautious answer). Failure when the text is not TOML.
bool containerd_nri_enabled(std::string_view main_text, const std::string& file, int major);

// Our drop-in turning NRI on: the main file's NRI table, every key kept (containerd 1.x replaces a
// plugin's whole table with an imported file's), with disable = false; the main file's version.
std::string containerd_nri_dropin(std::string_view main_text, const std::string& file);

// CRI-O's drop-in: [crio.nri] enable_nri = true.
std::string crio_nri_dropin();

// The pre-registered plugin: a script the runtime runs from its plugin directory at start, with
// the connection on NRI_PLUGIN_SOCKET; it execs gpu-numa-nri with our hook's path.
std::string nri_preregistered_script(const std::string& plugin_path, const std::string& hook_path);

}  // namespace gnh
