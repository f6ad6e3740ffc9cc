// How a start asks `topology --follow` (the DaemonSet's nvml-refresh container, or any follower on
// the host) for a current NVML cache: the follower holds a liveness lock (host/fs/liveness_lock.h) on
// the lock file for its whole life; a start that needs the cache for a GPU in MIG state and finds it missing, stale
// or of another layout creates the request file in the same folder and waits, bounded, for the
// follower to rename its answer into place ("current", "refreshed" or "failed: <why>"), then
// reads the cache again. No follower (no lock holder): nothing is asked, nothing waited for.
#pragma once

namespace gnh {

constexpr const char* kNvmlFollowerDir = "/run/gpu-numa-hook";
constexpr const char* kNvmlFollowerLockPath = "/run/gpu-numa-hook/nvml-follower.lock";
constexpr const char* kNvmlRefreshRequestName = "nvml-refresh-wanted";
constexpr const char* kNvmlRefreshAnswerName = "nvml-refresh-answer";

}  // namespace gnh
