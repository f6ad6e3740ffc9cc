// `runc update` while a container runs (kubelet's CPU and memory managers send one through
// containerd): a new cpuset.mems must not drop a GPU memory node the container has now, or a patch
// the hook made at start would be undone and CUDA's next allocation on that node would fail.
// Pure: the merge rule and its application to update's two forms (JSON resources, --cpuset-mems).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/node_set.h"

namespace gnh {

// requested ∪ (current ∩ gpu_nodes): never adds a node the container does not have, never keeps a
// non-GPU node the update removes.
NodeSet keep_gpu_nodes(const NodeSet& requested, const NodeSet& current, const NodeSet& gpu_nodes);

struct MemsUpdate {
  std::string requested;  // the mems the update asked for ("" = it sets none)
  std::string widened;    // what we pass on instead; == requested when nothing is kept
  NodeSet kept;           // GPU nodes put back
};

// A cpuset mems value ("--cpuset-mems" or resources cpu.mems). An empty value leaves mems alone in
// runc, so it is passed as is. Failure for text that is not a node list.
MemsUpdate widen_mems_value(std::string_view requested, const NodeSet& current, const NodeSet& gpu_nodes);

// The LinuxResources JSON of `runc update --resources`: cpu.mems widened as above, every other
// field kept in order. `update` is set when cpu.mems is present. Failure for JSON that is not an
// object (runc would refuse it as well; we stop before it).
struct ResourcesUpdate {
  std::optional<MemsUpdate> update;
  std::string text;  // unchanged when nothing was kept
};
ResourcesUpdate widen_resources_json(std::string_view json, const NodeSet& current, const NodeSet& gpu_nodes);

}  // namespace gnh
