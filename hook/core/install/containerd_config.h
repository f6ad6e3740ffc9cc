// containerd: the pure pieces of its engine (containerd_config.cc), exposed for the unit tests.
//
// How containerd reads its configuration (services/server/config/config.go): the main file, then
// each `imports` entry in order (globs sorted, relative paths against the importing file's
// directory), breadth first, each file once (containerd_load_order.h); the last non-zero
// `version` wins. containerd 1.x then replaces a plugin's whole table with an imported file's
// (issue 5837); 2.x merges plugin tables key by key (PR 9982) and migrates a version 2 result to
// version 3.
//
// install therefore writes its own drop-in, <main dir>/conf.d/99-zz-gpu-numa.toml (read after
// nvidia-ctk's 99-nvidia.toml), adds it to the main file's `imports` as a text edit when no entry
// already reads it, and leaves the text of every other file alone:
//   containerd 1.x: the drop-in carries the whole effective CRI plugin table plus our runtime;
//   containerd 2.x: it carries our runtime entry only (and the default, with --set-default);
//   version 1 files (no drop-in): the main file is edited in place and re-emitted.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "install/config_edit.h"
#include "install/engine_config.h"

namespace gnh {

constexpr const char* kContainerdDropin = "conf.d/99-zz-gpu-numa.toml";  // beside the main file

// The CRI plugin's key for a config version: 1 "cri", 2 "io.containerd.grpc.v1.cri", 3 and later
// (containerd 2.x) "io.containerd.cri.v1.runtime".
std::string containerd_cri_plugin(long long version);
// A file's `version`: 0 when it has none (containerd reads that as 1 when it is the only file).
long long containerd_file_version(std::string_view text, const std::string& file);

// The release in `containerd --version`'s output ("containerd github.com/containerd/containerd
// 1.6.20~ds1 ...", "... /v2 v2.1.1 ...") or in --containerd-version's value ("1.7", "2.1"): the
// first word that reads as MAJOR.MINOR. major 0 when there is none.
ContainerdRelease containerd_release_from(std::string_view text, const std::string& source);

// The main file's text with `entry` appended to its top-level `imports` array, or with a new line
// `imports = ["entry"]` (after `version`, else first) when it has none; every other byte kept.
// *added_line says which. A Failure when the result would not read back as exactly that.
std::string containerd_add_import(std::string_view text, const std::string& file, const std::string& entry,
                                  bool* added_line);
// The reverse: `entry` taken out of `imports` (the whole line when it holds only that entry and
// `whole_line`); the text unchanged when `entry` is not there.
std::string containerd_remove_import(std::string_view text, const std::string& file, const std::string& entry,
                                     bool whole_line);

// A version 1 file (or an install by an earlier gpu-numa-hook) edited in place: the CRI plugin's
// containerd.runtimes.gpu-numa added (a copy of the base runtime), or on uninstall removed and
// default_runtime_name put back to o.restore_default. toml++ re-emits the file.
std::string edit_containerd_config(std::string_view text, const std::string& file, const InstallOptions& o,
                                   EngineRuntimes* seen = nullptr);
// Whether a file defines any table of a CRI plugin (any version's key).
bool containerd_defines_cri(std::string_view text, const std::string& file);

}  // namespace gnh
