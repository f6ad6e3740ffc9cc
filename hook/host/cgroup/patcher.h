// Carries out a patch on the live hierarchy: under the lock, re-reads the chain (another start may
// have healed it meanwhile), writes top-down, reads each file back.
#pragma once

#include <string>
#include <vector>

#include "host/cgroup/cpuset_tree.h"
#include "host/fs/deadline.h"
#include "cgroup/patch_plan.h"

namespace gnh {

// `lock_path` is a host path already resolved for this machine. Writes through cpuset_writer.h.
// `arrives_later`: nodes of `add` not online yet (v2, a Grace GPU not initialized), written into
// cpuset.mems but not expected in the effective mems until the driver adds them.
PatchOutcome apply_patch(const CpusetTree& tree, const std::string& cgroup_path, const NodeSet& add,
                         const std::string& lock_path, const Deadline& deadline,
                         const NodeSet& arrives_later = NodeSet());

// The top-down snapshots of the chain from the first cgroup below the root to `cgroup_path`.
std::vector<CgroupMemsSnapshot> read_chain(const CpusetTree& tree, const std::string& cgroup_path);

}  // namespace gnh
