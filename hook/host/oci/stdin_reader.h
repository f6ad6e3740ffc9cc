// Reads the OCI state from stdin with a size cap and a deadline: a runtime (or anything posing as
// one) that never closes the pipe must not hang a container start.
#pragma once

#include <string>

#include "host/fs/deadline.h"

namespace gnh {

constexpr size_t kMaxStateBytes = 1024 * 1024;

// Failure on a read error, more than max_bytes, or the deadline passing.
std::string read_all_stdin(size_t max_bytes, const Deadline& deadline);

}  // namespace gnh
