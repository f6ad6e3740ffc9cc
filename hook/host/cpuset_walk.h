// Reads the whole cpuset hierarchy once, for `check`. Reading is the only I/O here; what is wrong
// with it is decided by the pure functions in check/findings.h.
#pragma once

#include "check/cpuset_snapshot.h"
#include "host/cpuset_tree.h"

namespace gnh {

// Walks every cgroup beneath the mount, parents before children. A cgroup removed while we walk
// is skipped (containers come and go); anything else we cannot read (a directory we cannot list, a
// malformed cpuset.mems) is a Failure naming the path: a part of the tree we could not see must
// not make the host look clean.
CpusetSnapshot snapshot_cpusets(const CpusetTree& tree);

}  // namespace gnh
