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
  // Grace GPUs not initialized yet (gpu/memory_state.h not_initialized, wont_online): whether the
  // hierarchy is cgroup v2, where a cgroup can name a node before it is online and one that
  // inherits gets it when it comes; the non-empty cpuset.mems of each cgroup from below the root
  // to the container (with the config's explicit mems), which such a node must be in to reach the
  // container; and auto_online_blocks. Read by the pipeline only when such a GPU is requested.
  bool cgroup_v2 = false;
  std::vector<NodeSet> chain_explicit_mems;
  std::string auto_online_blocks;
};

struct Decision {
  Action action = Action::allow;
  NodeSet required;   // memory nodes of coherent GPUs
  NodeSet preferred;  // nearest nodes of the GPUs (only when gpu-affinity is not ignore)
  NodeSet missing;    // required + preferred nodes the container lacks
  NodeSet to_add;     // what a patch adds (subset of missing)
  NodeSet arrives_later;  // nodes of to_add not online yet (v2, Grace GPU not initialized): a patch
                          // writes them into cpuset.mems; they reach the effective mems later
  std::string message;  // one line: the reason and, for refusals and warnings, the fix
};

Decision decide(const DecisionInput& in);

}  // namespace gnh
