// Replacing a file so that no reader ever sees it half-written: node_exporter's textfile, a
// container bundle's config.json, a runtime's configuration.
#pragma once

#include <string>

namespace gnh {

// Writes a temp file in the same directory, fsyncs it, sets `mode` and renames it over `path`
// (rename is atomic within one filesystem). Failure naming the file and errno; on failure `path`
// is untouched and no temp file is left. `path` is a path on this machine, taken as given.
void write_file_atomically(const std::string& path, const std::string& text, unsigned mode = 0644);

}  // namespace gnh
