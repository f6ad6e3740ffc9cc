// The plugin's two decisions, pure: NRI's view of a container in, an adjustment or an update out.
// GPU resolution and the update rule are the hook's and the shim's own (hook/core), not copies.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/node_set.h"
#include "nri_api.pb.h"
#include "runtime/update_mems.h"
#include "spec.h"

namespace gnh::nri {

namespace api = ::nri::pkg::api::v1alpha1;

// The fields of an OCI spec the GPU request reads, from NRI's Container message.
oci::Spec spec_of(const api::Container& c);

// The hook NRI adds at createRuntime: runc runs it with the container's state on stdin once the
// cgroup exists, before the container's process starts (the same point as prestart).
struct HookSettings {
  std::string path = "/usr/bin/gpu-numa-hook";  // on the host: runc runs it in its own namespace
  std::vector<std::string> extra_args;           // e.g. --config FILE, before the stage argument
  int timeout_s = 10;
};

// The adjustment for a container that may get GPUs (may_request_gpus, the hook's own fast test);
// nullopt for one that cannot, or that already has this hook at createRuntime.
std::optional<api::ContainerAdjustment> hook_adjustment(const api::Container& c, const HookSettings& hook);

// UpdateContainer: the update's cpu.mems widened to keep the container's GPU nodes (keep_gpu_nodes).
// nullopt when the update sets no mems or drops no GPU node; *mems says what was decided either way.
// Failure for a mems value that is not a node list.
std::optional<api::ContainerUpdate> widen_update(const std::string& container_id, const api::LinuxResources& requested,
                                                 const NodeSet& current, const NodeSet& gpu_nodes, MemsUpdate* mems);

}  // namespace gnh::nri
