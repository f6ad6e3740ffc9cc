// CRI-O: the shim as a runtime of its own (crio_config.cc), so that kubelet's
// UpdateContainerResources also goes through the shim's `update` handling there (issue 19).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "install/config_edit.h"
#include "install/engine_config.h"

namespace gnh {

// In crio.conf.d; it sorts after NVIDIA's 99-nvidia.toml (its toolkit container's), whose default_runtime
// would otherwise win.
constexpr const char* kCrioDropin = "99-zz-gpu-numa.toml";

// Our whole drop-in, given CRI-O's files in the order it reads them (crio.conf, then
// crio.conf.d/*.toml; later values win): [crio.runtime.runtimes.gpu-numa] is a copy of the base
// runtime (default_runtime unless NVIDIA's, else runc, else crun) with runtime_path = the shim and
// runtime_type = "oci"; --set-default adds default_runtime. "" on uninstall (the file goes).
std::string crio_runtime_dropin(const std::vector<std::pair<std::string, std::string>>& files, const InstallOptions& o,
                                EngineRuntimes* seen = nullptr);
// The files CRI-O reads from its drop-in directory, in its order: every file beneath it, whatever
// its name (no suffix, .conf, .toml, hidden), in byte order, subdirectories where their names sort.
std::vector<std::string> crio_dropin_files(const ConfigReader& reader, const std::string& dir);
// Whether our drop-in makes gpu-numa CRI-O's default (an earlier --set-default, kept by a re-run).
bool crio_dropin_is_default(std::string_view our_dropin, const std::string& file);

}  // namespace gnh
