// What `check` finds wrong with a cpuset hierarchy, and the fix it plans. Pure: a snapshot and the
// host's nodes in, findings out, so every rule is unit-tested without a host.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "check/cpuset_snapshot.h"
#include "gpu/gpu.h"
#include "gpu/memory_state.h"
#include "base/node_set.h"
#include "cgroup/patch_plan.h"

namespace gnh {

// A GPU memory node no container can have yet (gpu/memory_state.h: offline, not_in_kernel,
// impossible_node). One missing from the root cpuset is reported as root_missing instead.
struct OfflineGpuNode {
  std::string gpu;     // "/dev/nvidia3"
  std::string bus_id;
  int node = -1;
  std::string status;  // numa_status Status: "offline", "online_in_progress", ...
  GpuMemoryState state = GpuMemoryState::offline;
  std::string why;     // for the operator: the status, or what else keeps the node unusable
};

struct HostNodes {
  NodeSet memory;      // online memory nodes (has_memory)
  // Nodes that can come online after boot and so be missing from old cpusets: memory nodes
  // without CPUs (GPU memory, CXL). A cgroup lacking any other node was narrowed on purpose
  // (--cpuset-mems, a NUMA pin) and is left alone. All memory nodes when has_cpu is unknown.
  NodeSet late;
  NodeSet gpu_online;  // GPU memory nodes whose numa_status is online
  std::vector<OfflineGpuNode> gpu_offline;
};

// cpu_nodes is has_cpu, nullptr when the kernel does not say (then every memory node counts as late);
// possible is every node the kernel can have (empty: unknown).
// auto_online_blocks: read when a Grace GPU is not initialized (driver_reader.h), else "".
HostNodes host_nodes_from(const Inventory& inv, const NodeSet& memory, const NodeSet* cpu_nodes,
                          const NodeSet& possible = NodeSet(), const std::string& auto_online_blocks = "");

struct StaleCgroup {
  std::string path;
  NodeSet mems;      // cpuset.mems now
  NodeSet expected;  // mems | missing: what the fix writes
  NodeSet missing;   // nodes its parent chain has (or will have once fixed) that it lacks
};

struct GpuNodeGap {
  std::string path;
  NodeSet mems;
  NodeSet missing;     // online GPU memory nodes it lacks
  bool stale = false;  // also in the stale list: the fix adds what its parents have
};

struct CheckFindings {
  CgroupVersion version = CgroupVersion::v1;
  std::string mount_point;
  size_t cgroups = 0;        // walked, root included
  NodeSet root_mems;
  NodeSet host_memory;
  NodeSet gpu_online;
  std::vector<StaleCgroup> stale;          // top-down: parents before children
  std::vector<GpuNodeGap> missing_gpu_node;
  std::vector<OfflineGpuNode> gpu_offline;
  NodeSet root_missing;                    // online memory nodes the root cpuset lacks

  // Stale cgroups, offline GPU nodes and nodes missing from the root: each makes `check` exit 1.
  // A gap in a deliberately narrowed cgroup alone is reported but is not a problem.
  // A Grace GPU not initialized (persistence mode off) is one on v1 only: on v2 a container
  // inherits its node when the driver adds it.
  size_t problems() const {
    size_t offline = 0;
    for (const auto& g : gpu_offline)
      offline += !(g.state == GpuMemoryState::not_initialized && version == CgroupVersion::v2);
    return stale.size() + offline + root_missing.size();
  }
};

// v1: a child is compared with what its parent has once the parent is fixed (the kernel adds
// late nodes to the root only). v2: only cgroups with an explicit, non-empty cpuset.mems are
// compared, with their parent's effective mems; empty ones inherit and cannot be stale.
CheckFindings find_problems(const CpusetSnapshot& snap, const HostNodes& nodes);

// The same rules, one cgroup at a time in pre-order, keeping nothing per cgroup but the findings:
// `check` walks 100,000 cgroups in a few MiB this way (host/cgroup/cpuset_walk.h). find_problems is this
// over a snapshot.
class FindingsBuilder {
 public:
  FindingsBuilder(CgroupVersion version, std::string mount_point, const NodeSet& root_mems, const HostNodes& nodes);
  // The root's reference for its children (its mems).
  const NodeSet& root_fixed() const { return f_.root_mems; }
  // A cgroup below the root; parent_fixed is what add() returned for its parent (root_fixed() for
  // the root's children). Returns this cgroup's reference for its own children.
  NodeSet add(std::string_view path, const NodeSet& parent_fixed, const NodeSet& mems, bool has_mems);
  CheckFindings take() { return std::move(f_); }

 private:
  const HostNodes& nodes_;
  CheckFindings f_;
};

// The writes that fix every stale cgroup, parents first; each only adds nodes.
std::vector<PatchStep> plan_check_fix(const CheckFindings& findings);

}  // namespace gnh
