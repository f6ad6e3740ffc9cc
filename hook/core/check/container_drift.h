// Running GPU containers whose cgroup no longer allows their GPUs' memory nodes: the node was there
// when the hook let the container start (it patches or refuses), so a container without it lost it
// since (systemd re-applying a unit's AllowedMemoryNodes= at daemon-reload, a manual write, a
// `runc update` around our shim). Pure: what the host layer read in, findings out.
#pragma once

#include <string>
#include <vector>

#include "base/node_set.h"
#include "decide/policy.h"

namespace gnh {

struct RunningGpuContainer {
  std::string id;
  std::string runtime_root;  // the state root it was found in ("/run/runc", "/run/crun")
  std::string cgroup;        // beneath the cpuset hierarchy's mount ("/system.slice/runc-c1.scope")
  NodeSet mems;              // its effective cpuset.mems now
  NodeSet gpu_nodes;         // memory nodes of the GPUs its bundle asks for
  std::string gpus;          // "/dev/nvidia0(0000:01:00.0)"
};

struct LostGpuNode {
  std::string id;
  std::string cgroup;
  std::string gpus;
  NodeSet mems;
  NodeSet missing;  // online GPU memory nodes of its GPUs that its cgroup no longer allows
};

// A loss only under the policy that widens explicit mems (the default): with
// `explicit-mems = "respect"` a container pinned away from its GPU's node was started that way.
// Only online GPU nodes count: an offline one is reported as such by check.
std::vector<LostGpuNode> find_lost_gpu_nodes(const std::vector<RunningGpuContainer>& running, const NodeSet& gpu_online,
                                             ExplicitMemsPolicy policy);

// What `check --fix` did for one such container.
struct ContainerFix {
  std::string id;
  std::string cgroup;
  NodeSet before, after;
  bool written = false;
  bool busy = false;  // left alone: the widening would remap its running tasks' bound memory
  std::string error;
};

// check's text for these (a section, "" when there is nothing to say).
std::string lost_gpu_nodes_text(const std::vector<LostGpuNode>& lost);
std::string container_fixes_text(const std::vector<ContainerFix>& fixes);

}  // namespace gnh
