#include "decide/decision.h"

#include "gpu/memory_state.h"
#include "gpu/mig_devices.h"
#include "gpu/self_onlining.h"

namespace gnh {

const char* to_string(Action a) {
  switch (a) {
    case Action::allow: return "allow";
    case Action::patch: return "patch";
    case Action::refuse: return "refuse";
    case Action::warn: return "warn";
  }
  return "?";
}

namespace {

constexpr const char* kFixHint =
    "run 'gpu-numa-hook check --fix' or restart the container service after nvidia-persistenced";

// The first GPU (in inventory order) whose node is in `nodes`, for naming it in a message.
const Gpu* gpu_for_memory_node(const std::vector<Gpu>& gpus, const NodeSet& nodes) {
  for (const auto& g : gpus) {
    if (g.memory_node && nodes.contains(*g.memory_node)) return &g;
    for (const auto& m : g.mig_instances)
      if (m.memory_node && nodes.contains(*m.memory_node)) return &g;
  }
  return nullptr;
}
const Gpu* gpu_for_affinity_node(const std::vector<Gpu>& gpus, const NodeSet& nodes) {
  for (const auto& g : gpus)
    if (g.affinity_node && nodes.contains(*g.affinity_node)) return &g;
  return nullptr;
}

std::string node_word(const NodeSet& s) { return s.size() == 1 ? "NUMA node " : "NUMA nodes "; }

struct Refusal {
  bool set = false;
  std::string message;
  void offer(std::string m) {
    if (!set) { set = true; message = std::move(m); }
  }
};

}  // namespace

Decision decide(const DecisionInput& in) {
  Decision d;
  Refusal refusal;
  std::string warning;
  std::string widened_explicit;
  const std::string where = "cgroup " + in.cgroup + " allows only " + in.effective.to_display();

  // 1. GPU memory that is not usable cannot be patched in: the container would fail on first use.
  const HostMemoryFacts host{in.host_memory_nodes, in.root_mems, in.possible_nodes, in.auto_online_blocks};
  std::string notes;  // why a GPU needs no node, for the log and explain
  NodeSet comes_later;      // not-initialized GPUs' nodes that will reach the container by themselves (v2)
  NodeSet not_initialized;  // not-initialized GPUs' nodes
  // One GPU's memory, or one MIG instance's (`mig`: its description, "" for a whole GPU).
  auto consider = [&](const Gpu& g, GpuMemoryState state, const std::string& mig) {
    if (!needs_memory_node(state)) return;
    if (state == GpuMemoryState::unreadable) {
      refusal.offer("GPU " + g.label() + ": " + g.memory_read_error + "; cannot tell which NUMA node its memory needs");
      return;
    }
    int node = *g.memory_node;
    d.required.add(node);
    std::string gpu_node = "GPU " + g.label() + mig + " memory NUMA node " + std::to_string(node);
    std::string status = g.memory_status.value_or("unknown");
    switch (state) {
      case GpuMemoryState::impossible_node:
        // Waiting cannot help: the node will never exist. Usually a wrong override or driver mode.
        refusal.offer(gpu_node +
                      (g.overridden ? " (from a [[topology.gpu]] override)"
                                    : !mig.empty() ? " (from the NVML cache)" : " (from the driver's numa_status)") +
                      " is not a NUMA node of this host (possible nodes: " + in.possible_nodes.to_display() + "); " +
                      (g.overridden ? "fix the override in the gpu-numa-hook config"
                                    : "check the driver's coherent-memory mode (CoherentGPUMemoryMode in "
                                      "/proc/driver/nvidia/params)"));
        break;
      case GpuMemoryState::failed:
        refusal.offer(gpu_node + ": the driver failed to take it " +
                      (status == "online_failed" ? std::string("online") : std::string("offline")) +
                      " (numa_status: " + status +
                      "); it will not recover by itself: see the driver's messages ('dmesg | grep NVRM') and "
                      "nvidia-persistenced's log, then reset the GPU or reboot");
        break;
      case GpuMemoryState::going_offline:
        refusal.offer(gpu_node + " is being taken offline (numa_status: " + status +
                      "); a container started now would lose its GPU memory; start it again once the memory is "
                      "back online ('gpu-numa-hook wait')");
        break;
      case GpuMemoryState::not_in_kernel:
        refusal.offer(gpu_node + " is online for the driver but not yet a memory node of the kernel (host memory nodes: " +
                      in.host_memory_nodes.to_display() +
                      "); its memory blocks are not online yet; wait for them ('gpu-numa-hook wait') and start "
                      "the container again");
        break;
      case GpuMemoryState::offline:
        refusal.offer(gpu_node + " is not online yet (numa_status: " + status +
                      ", host memory nodes: " + in.host_memory_nodes.to_display() +
                      "); is nvidia-persistenced still onlining it? Wait for it ('gpu-numa-hook wait') "
                      "and start the container again");
        break;
      case GpuMemoryState::wont_online:
        refusal.offer(gpu_node + " is " + not_initialized_text() + " (numa_status: " + status + ") and " +
                      wont_online_text(in.auto_online_blocks));
        break;
      case GpuMemoryState::not_initialized: {
        not_initialized.add(node);
        if (!in.cgroup_v2) {
          refusal.offer(gpu_node + " is not online: the GPU is " + not_initialized_text() + ", numa_status: " + status +
                        "; the driver adds its memory at the GPU's first client, after this container started, and "
                        "on cgroup v1 a running container never gains a node; " + kPersistenceFix +
                        " so the memory is online before containers start");
          break;
        }
        bool reaches = true;
        for (const auto& m : in.chain_explicit_mems) reaches = reaches && m.contains(node);
        if (!reaches) break;  // a cgroup on the way names its mems without it: step 2 adds it
        comes_later.add(node);
        notes += "; " + gpu_node + " is " + not_initialized_text() +
                 ": the driver adds it at the GPU's first client, and on cgroup v2 the container, which inherits "
                 "its mems, gets it then";
        break;
      }
      case GpuMemoryState::not_in_root:
        refusal.offer(gpu_node + " is online but not in the root cpuset (" + in.root_mems.to_display() +
                      "); the kernel did not add it, so no cgroup can get it; check the host's cpuset setup");
        break;
      default:
        break;
    }
  };
  for (const auto& g : in.gpus) {
    GpuMemoryState state = classify_gpu_memory(g, host);
    if (state != GpuMemoryState::mig) {
      consider(g, state, "");
      continue;
    }
    if (g.mig_instances.empty()) {
      notes += "; GPU " + g.label() + ": numa_status cannot be read (EIO), as while MIG instances are active: "
               "its memory is not a NUMA node now, none is required";
      continue;
    }
    // MIG in NUMA mode: each GPU instance's memory is its own node (NVML cache). The driver onlines
    // it when the instance is created, so it is classified as an online node of the GPU.
    std::string listed;
    for (const auto& m : g.mig_instances) {
      listed += (listed.empty() ? "" : ", ") + m.index + "=" +
                (m.memory_node ? "node " + std::to_string(*m.memory_node) : std::string("no node"));
      if (!m.memory_node) continue;
      Gpu instance = mig_instance_memory(g, m);
      consider(instance, classify_gpu_memory(instance, host), " MIG " + m.index + " (" + m.uuid + ")");
    }
    notes += "; GPU " + g.label() + " is in MIG mode (numa_status EIO): the container's MIG instances " + listed +
             " (NVML cache)";
  }

  // 2. Required nodes the container lacks.
  NodeSet missing_required = d.required - in.effective - comes_later;
  d.missing |= missing_required;
  if (!missing_required.empty() && !refusal.set) {
    const Gpu* g = gpu_for_memory_node(in.gpus, missing_required);
    std::string needs = "GPU " + (g ? g->label() : std::string("?")) + " needs " + node_word(missing_required) +
                        missing_required.to_string();
    if (in.explicit_mems && !d.required.is_subset_of(*in.explicit_mems) &&
        in.policy.explicit_mems == ExplicitMemsPolicy::respect) {
      refusal.offer(needs + " but the container's config sets cpuset mems explicitly to " +
                    in.explicit_mems->to_display() + " (" + where +
                    "; policy explicit-mems=respect); add the node to the container's cpuset mems "
                    "(--cpuset-mems) or set explicit-mems = \"widen\"");
    } else {
      switch (in.policy.missing_node) {
        case MissingNodePolicy::patch:
          d.to_add |= missing_required;
          // A GPU given without its memory is unusable, so no intent is served by keeping the
          // explicit value as it is (explicit-mems=widen): say what was overridden.
          if (in.explicit_mems && !missing_required.is_subset_of(*in.explicit_mems))
            widened_explicit = "overriding the container's explicit cpuset mems " + in.explicit_mems->to_display() +
                               " (linux.resources.cpu.mems; policy explicit-mems=widen) with its GPUs' memory " +
                               node_word(missing_required) + missing_required.to_string();
          break;
        case MissingNodePolicy::refuse:
          refusal.offer(needs + " but " + where + " (policy missing-node=refuse); " + kFixHint);
          break;
        case MissingNodePolicy::warn:
          if (warning.empty())
            warning = needs + " but " + where + " (policy missing-node=warn): its first CUDA allocation will "
                      "fail; " + kFixHint;
          break;
      }
    }
  }

  // 3. Nearest nodes: a preference; never worth overriding an explicit user choice.
  if (in.policy.gpu_affinity != AffinityPolicy::ignore) {
    for (const auto& g : in.gpus)
      if (g.affinity_node) d.preferred.add(*g.affinity_node);
    NodeSet missing_pref = d.preferred - in.effective - d.to_add;
    d.missing |= missing_pref;
    if (!missing_pref.empty()) {
      const Gpu* g = gpu_for_affinity_node(in.gpus, missing_pref);
      std::string lacks = "GPU " + (g ? g->label() : std::string("?")) + " is nearest to " +
                          node_word(missing_pref) + missing_pref.to_string() + " but " + where;
      NodeSet unusable = missing_pref - (in.host_memory_nodes & in.root_mems);
      // Only GPU memory nodes ever override an explicit value; a nearest node is a preference.
      bool user_chose = in.explicit_mems.has_value();
      AffinityPolicy p = in.policy.gpu_affinity;
      if (p == AffinityPolicy::refuse) {
        refusal.offer(lacks + " (policy gpu-affinity=refuse); give the container that node or set "
                      "gpu-affinity = \"warn\"");
      } else if (p == AffinityPolicy::patch && unusable.empty() && !user_chose) {
        d.to_add |= missing_pref;
      } else if (warning.empty()) {
        std::string why = p == AffinityPolicy::patch
                              ? (unusable.empty() ? "explicit cpuset mems respected" : "node not online on this host")
                              : "policy gpu-affinity=warn";
        warning = lacks + " (" + why + "): GPU transfers will cross the interconnect";
      }
    }
  }

  if (!refusal.set) d.arrives_later = d.to_add & not_initialized;
  if (!d.arrives_later.empty())
    notes += "; " + node_word(d.arrives_later) + d.arrives_later.to_string() +
             " not online yet: the GPU is " + not_initialized_text() +
             "; cgroup v2 takes a possible node in cpuset.mems now, and the container gets it when the driver adds "
             "the memory at the GPU's first client";
  if (refusal.set) {
    d.action = Action::refuse;
    d.to_add = NodeSet();
    d.message = refusal.message;
  } else if (!d.to_add.empty()) {
    d.action = Action::patch;
    d.message = "adding " + node_word(d.to_add) + d.to_add.to_string() + " for the container's GPUs to cgroup " +
                in.cgroup + " (had " + in.effective.to_display() + ")";
    if (!widened_explicit.empty()) d.message += "; " + widened_explicit;
    if (!warning.empty()) d.message += "; also: " + warning;
  } else if (!warning.empty()) {
    d.action = Action::warn;
    d.message = warning;
  } else {
    d.action = Action::allow;
    d.message = d.required.empty() && d.preferred.empty()
                    ? "the container's GPUs have no NUMA node to require"
                    : "cgroup " + in.cgroup + " already allows " + ((d.required | d.preferred) - comes_later).to_display();
    if (!comes_later.empty())
      d.message = "cgroup " + in.cgroup + " allows " + in.effective.to_display() + " and inherits " +
                  node_word(comes_later) + comes_later.to_string() + " when the driver adds it";
  }
  if (!refusal.set) d.message += notes;
  return d;
}

}  // namespace gnh
