// Which registrations rewrote each of the operator's files, from install-state.json's `wrote`
// digests. Several registrations can share one file (containerd and nri both edit config.toml,
// docker is re-run with --set-default, engines and nvidia-legacy all edit our config): its backup
// is the operator's original, made by the first one only, kept while any registration still
// claims the file, and given back byte for byte by the last one undone. The digest of what
// install last wrote is the same in every record that names the file, so whichever is undone
// last can tell the file was not changed since.
#pragma once

#include <string>

#include "host/install/install_state.h"

namespace gnh::install_cli {

// The claims recorded before this registration (`self`, its install-state.json key) writes.
void load_claims(const InstallState& state, const std::string& self);

// This machine's `path` is named by some record: the original's backup was made then, and stays.
bool claimed(const std::string& path);
// ... by a record other than self's: undoing self must not give its backup back.
bool claimed_by_others(const std::string& path);
// `text` is exactly what install last wrote to `path` (nothing changed it since).
bool still_as_written(const std::string& path, const std::string& text);

// The file writer's note of what it wrote to a file not of ours alone (an engine's, our config).
void note_written(const std::string& path, const std::string& text);

// After the writes: what was written goes into self's record (install) and into every other
// record that claims the same file (install and uninstall). Whether the state changed.
bool record_writes(InstallState& state, const std::string& self, bool uninstall);

}  // namespace gnh::install_cli
