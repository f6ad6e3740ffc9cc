// Replacing a file so that no reader ever sees it half-written: node_exporter's textfile, a
// container bundle's config.json, a runtime's configuration.
#pragma once

#include <string>

namespace gnh {

// Whether the new content must be on disk before it replaces the old: `flushed` for files that
// outlive a reboot (configuration, metrics); `replaced` where only readers matter, because the
// file does not outlive the boot (a container bundle): rename alone keeps readers from ever seeing
// half a file, and an fsync there cost a container start ~7 ms on ext4 (docs/internals/benchmarks.md).
enum class Durability { flushed, replaced };

// Writes a temp file in the same directory, fsyncs it (Durability::flushed), sets `mode` and
// renames it over `path` (rename is atomic within one filesystem; Durability::replaced exchanges
// the two where it can, see atomic_file.cc). Failure naming the file and
// errno; on failure `path` is untouched and no temp file is left. `path` is a path on this
// machine, taken as given.
void write_file_atomically(const std::string& path, const std::string& text, unsigned mode = 0644,
                           Durability durability = Durability::flushed);

}  // namespace gnh
