// A bundle's config.json, read with a size cap and parsed: the one reader for hook mode and
// `explain` (and the runtime shim).
#pragma once

#include <string>

#include "host/fs/host_fs.h"
#include "spec.h"

namespace gnh {

// config.json is the container creator's: big enough for any real spec, small enough not to hurt.
constexpr size_t kMaxSpecBytes = 16 * 1024 * 1024;

// `bundle` is a path as `fs` resolves it. Failure when there is no config.json (ENOENT), it is too
// large or unreadable; oci::ParseError when it does not parse.
oci::Spec read_bundle_spec(const HostFs& fs, const std::string& bundle);

}  // namespace gnh
