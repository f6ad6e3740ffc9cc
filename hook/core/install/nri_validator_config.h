// `install --runtime nri --nri-require-for-gpu-pods`: NRI's default validator on (containerd 2.2
// and later), so that a pod annotated required-plugins.noderesource.dev: ["gpu-numa"] (the
// require-plugin component's MutatingAdmissionPolicy adds it to GPU pods) is refused while our
// plugin is not registered. Text in, text out. Never required_plugins: node-wide, it would stop
// every pod, system pods and our own DaemonSet included, while the plugin is down.
#pragma once

#include <string>
#include <string_view>

namespace gnh {

constexpr const char* kContainerdNriValidatorDropin = "conf.d/99-zz-gpu-numa-nri-validator.toml";  // beside the main file

// "" when containerd MAJOR.MINOR has NRI's default validator (2.2 and later); else why the flag
// cannot be honoured there, for the operator (major 0: the release is unknown).
std::string nri_validator_unsupported(int major, int minor, const std::string& which);

// Our drop-in: [plugins."io.containerd.nri.v1.nri".default_validator] enable = true and nothing
// else (containerd 2.x merges plugin tables key by key, so the main file's NRI keys stay); the
// main file's version. Failure when the main text is not TOML.
std::string containerd_nri_validator_dropin(std::string_view main_text, const std::string& file);

}  // namespace gnh
