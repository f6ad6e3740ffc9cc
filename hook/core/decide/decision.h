// The decision table: from plain facts about a container's GPUs and cpuset to allow / patch /
// refuse / warn, with the one-line reason. Pure: no files, no clock.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpu/gpu.h"
#include "base/node_set.h"
#include "decide/policy.h"

namespace gnh {

enum class Action { allow, patch, refuse, warn };
const char* to_string(Action a);

struct DecisionInput {
  std::vector<Gpu> gpus;              // the container's GPUs
  NodeSet host_memory_nodes;          // online memory nodes on the host
  NodeSet possible_nodes;             // every node this kernel can ever have; empty = unknown
  NodeSet root_mems;                  // the hierarchy root's mems
  std::string cgroup;                 // the container's cgroup, as an operator can find it
  NodeSet effective;                  // the container's effective mems now
  std::optional<NodeSet> explicit_mems;  // linux.resources.cpu.mems from config.json, when set
  Policy policy;
};

struct Decision {
  Action action = Action::allow;
  NodeSet required;   // memory nodes of coherent GPUs
  NodeSet preferred;  // nearest nodes of the GPUs (only when gpu-affinity is not ignore)
  NodeSet missing;    // required + preferred nodes the container lacks
  NodeSet to_add;     // what a patch adds (subset of missing)
  std::string message;  // one line: the reason and, for refusals and warnings, the fix
};

Decision decide(const DecisionInput& in);

}  // namespace gnh
