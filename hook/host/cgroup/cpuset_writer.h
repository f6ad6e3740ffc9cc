// The one place cpuset.mems is written, for the hook's patch and for `check --fix` alike: only
// below the root (the root is the kernel's), only ever widening, and read back to prove it held.
#pragma once

#include "base/error.h"
#include "cgroup/patch_plan.h"
#include "host/cgroup/cpuset_tree.h"

namespace gnh {

// Writes step.after to step.path's cpuset.mems and reads it back (the nodes it adds must be there);
// returns what it read. Failure (errno kept: ENOENT when
// the cgroup was removed meanwhile) naming the file, the value and the errno; also when the step
// would narrow the cgroup or names the root, which no plan of ours produces.
NodeSet write_mems_verified(const CpusetTree& tree, const PatchStep& step);

// A write refused because the value held a node the kernel has just taken offline (EINVAL), or
// whose added nodes did not read back (EIO): re-reading and planning again may succeed.
bool worth_replanning(const Error& e);

}  // namespace gnh
