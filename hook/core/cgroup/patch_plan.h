// Which cpuset.mems files a patch writes, top-down, and with what. Pure. Every step's value is a
// superset of what was there: a patch never removes a node.
#pragma once

#include <string>
#include <vector>

#include "cgroup/cgroup_location.h"
#include "base/node_set.h"

namespace gnh {

struct CgroupMemsSnapshot {
  std::string path;     // "/docker", "/docker/3f2a"
  NodeSet configured;   // cpuset.mems now
  bool has_files = true;
};

struct PatchStep {
  std::string path;
  NodeSet before;
  NodeSet after;  // before | added nodes
};

// v1: every cgroup from the first one below the root that lacks a node down to the container gets
// current | add (a v1 child must stay a subset of its parent, hence top-down).
// v2: only cgroups with an explicit (non-empty) cpuset.mems that lacks a node; empty ones inherit.
// What carrying out a patch did (host/cgroup/patcher.h); the verdict (decide/verdict.h) words it.
struct PatchOutcome {
  bool ok = false;
  bool locked = false;           // false: the lock was not had (held past the deadline): a hook error, not the cgroup's
  std::vector<PatchStep> steps;  // the writes that were made and verified
  NodeSet effective_after;       // the container's effective mems at the end
  std::string error;             // when !ok: the file, the value and the errno
};

// Whether widening `before` to `after` leaves every node of `before` at its position (its rank in
// the set). The kernel rebinds a running task's NUMA memory policy by position when its cpuset's
// mems change (mpol_rebind_*, unless MPOL_F_STATIC_NODES): widening 0,2 to 0-2 turns a policy bound
// to node 2 (second of 0,2) into one bound to node 1 (second of 0-2). Only nodes added above every
// existing one keep the positions. Found by the VM soak (tests/vm/mpol-rebind-probe.sh shows it).
bool widening_keeps_positions(const NodeSet& before, const NodeSet& after);

std::vector<PatchStep> plan_patch(CgroupVersion version, const std::vector<CgroupMemsSnapshot>& top_down,
                                  const NodeSet& add);

}  // namespace gnh
