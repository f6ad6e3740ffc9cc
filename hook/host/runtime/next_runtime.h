// The OCI runtime the shim hands over to ([runtime] next): found in a fixed PATH or at an absolute
// path, never the shim itself, then exec'd with the caller's arguments.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gnh {

// The PATH names in [runtime] next are looked up in: fixed, so the caller's environment cannot
// choose the runtime that runs every container.
constexpr const char* kRuntimeSearchPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// Set by the shim for the runtime it execs: the index in [runtime] next of the entry it ran. A
// runtime that runs gpu-numa-runtime as its own low-level runtime brings it back with this set:
// NVIDIA's toolkit container takes containerd's default runtime's binary for that, which is the
// shim when gpu-numa is the default. The shim then passes straight on to an entry after that one:
// the chain ends in runc instead of exec'ing itself and NVIDIA's runtime in turn forever, and the
// hook is registered once, before NVIDIA's runtime edits the spec.
constexpr const char* kChainedEnv = "GPU_NUMA_RUNTIME_CHAINED";

struct NextRuntime {
  std::string path;
  size_t index = 0;  // in [runtime] next
};

// The index a caller's GPU_NUMA_RUNTIME_CHAINED names; nullopt when unset or not a small number
// (then the shim runs as the first in the chain).
std::optional<size_t> chained_index(const char* value);

// The first candidate from index `from` on that is an executable file. Failure naming runtime.next
// when none is, or when the first one found is this very program (same device and inode as
// /proc/self/exe): that would exec itself forever. `reentered_from`: the entry that ran us back.
NextRuntime find_next_runtime(const std::vector<std::string>& candidates, size_t from = 0,
                              std::optional<size_t> reentered_from = std::nullopt);

// execv(path, argv with argv[0] replaced by path), GPU_NUMA_RUNTIME_CHAINED set to its index.
// Returns only by Failure.
[[noreturn]] void exec_runtime(const NextRuntime& next, const std::vector<std::string>& argv);

}  // namespace gnh
