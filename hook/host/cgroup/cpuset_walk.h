// Reads the whole cpuset hierarchy once, for `check`. Reading is the only I/O here; what is wrong
// with it is decided by the pure functions in check/findings.h.
#pragma once

#include "check/cpuset_snapshot.h"
#include "check/findings.h"
#include "host/cgroup/cpuset_tree.h"

namespace gnh {

// Walks every cgroup beneath the mount, parents before children. A cgroup removed while we walk
// is skipped (containers come and go); anything else we cannot read (a directory we cannot list, a
// malformed cpuset.mems) is a Failure naming the path: a part of the tree we could not see must
// not make the host look clean.
CpusetSnapshot snapshot_cpusets(const CpusetTree& tree);

// find_problems(snapshot_cpusets(tree), nodes), the same findings in the same order, without the
// snapshot: `check`'s walk. Each directory is opened once and its files and subdirectories are
// opened relative to it (HostFs's BeneathDir: the same beneath / no-symlink / no-mount-crossing
// rules); one path string grows and shrinks with the walk; memory is the findings plus one sorted
// name list per level, not a record per cgroup (100,000 cgroups: docs/internals/benchmarks.md).
CheckFindings find_problems_walking(const CpusetTree& tree, const HostNodes& nodes);

}  // namespace gnh
