// Which cpuset.mems files a patch writes, top-down, and with what. Pure. Every step's value is a
// superset of what was there: a patch never removes a node.
#pragma once

#include <string>
#include <vector>

#include "cgroup_location.h"
#include "node_set.h"

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
std::vector<PatchStep> plan_patch(CgroupVersion version, const std::vector<CgroupMemsSnapshot>& top_down,
                                  const NodeSet& add);

}  // namespace gnh
