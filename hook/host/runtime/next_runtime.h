// The OCI runtime the shim hands over to ([runtime] next): found in a fixed PATH or at an absolute
// path, never the shim itself, then exec'd with the caller's arguments.
#pragma once

#include <string>
#include <vector>

namespace gnh {

// The PATH names in [runtime] next are looked up in: fixed, so the caller's environment cannot
// choose the runtime that runs every container.
constexpr const char* kRuntimeSearchPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// The first candidate that is an executable file. Failure naming runtime.next when none is, or
// when the first one found is this very program (same device and inode as /proc/self/exe): that
// would exec itself forever.
std::string find_next_runtime(const std::vector<std::string>& candidates);

// execv(path, argv with argv[0] replaced by path). Returns only by Failure.
[[noreturn]] void exec_runtime(const std::string& path, const std::vector<std::string>& argv);

}  // namespace gnh
