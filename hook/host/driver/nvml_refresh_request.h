// A start's request for a current NVML cache, answered by a running `topology --follow`
// (gpu/nvml_refresh_protocol.h). Costs one failed open where no follower runs.
#pragma once

#include <string>

#include "host/fs/host_fs.h"

namespace gnh {

struct NvmlRefreshRequest {
  bool follower = false;  // a follower holds its lock: it was asked
  bool answered = false;  // it answered within the wait
  std::string answer;     // its answer's first line ("refreshed", "failed: ...")
};

// Asks and waits up to wait_ms for the answer. Never throws: a request that cannot be made is
// one that was not answered.
NvmlRefreshRequest request_nvml_refresh(const HostFs& fs, int wait_ms);

}  // namespace gnh
