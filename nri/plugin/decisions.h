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
  // Where the host's / is in the plugin's view ("/" on the host, the DaemonSet's /host): the hook
  // is checked, the containers' cgroups and the driver's GPU files are read there.
  std::string host_root = "/";
};

// containerd/nri's GetEffectiveAnnotation: the pod's annotation `<key>/container.<container>`,
// else `<key>/pod`, else `<key>`; the first one present wins, even when its value is empty.
std::optional<std::string> effective_pod_annotation(const api::PodSandbox& pod, const std::string& key,
                                                    const std::string& container);

// NVIDIA's NRI plugin (nvidia-ctk-installer --enable-nri-plugin, the GPU operator's NRI mode) hands
// containerd the CDI devices this pod annotation names for the container. NRI shows no plugin the
// CDI devices another one asked for, and containerd resolves them into linux.devices only after
// every plugin answered: we see the request, never the device nodes.
constexpr const char* kNvidiaNriCdiAnnotation = "nvidia.cdi.k8s.io";
// That annotation, as NVIDIA's plugin reads it for this container, names an NVIDIA GPU's CDI device.
bool nvidia_nri_plugin_gives_gpu(const api::PodSandbox& pod, const api::Container& c);

// The CRI request names an NVIDIA GPU's CDI device (Container.CDI_devices, NRI 0.12), which the
// runtime resolves into linux.devices only after the plugins answered.
bool cri_cdi_devices_give_gpu(const api::Container& c);

// The adjustment for a container that may get GPUs (may_request_gpus, the hook's own fast test,
// NVIDIA's NRI annotation, or the CRI request's CDI devices); nullopt for one that cannot, or that
// already has this hook at createRuntime.
std::optional<api::ContainerAdjustment> hook_adjustment(const api::Container& c, const api::PodSandbox& pod,
                                                        const HookSettings& hook);

// PostCreateContainer: the container as created, after every plugin's adjustment. NRI shows no
// plugin the others' adjustments at CreateContainer, so a GPU another plugin adds (a device
// injector, a CDI edit) after ours answered shows only here. When the container may get a GPU and
// carries gpu-numa-hook at no stage: where its GPU comes from, for the log ("linux.devices", ...);
// else nullopt. Nothing can be added to a created container: the finding is for the operator.
std::optional<std::string> created_without_hook(const api::PodSandbox& pod, const api::Container& c,
                                                const HookSettings& hook);

// UpdateContainer. The runtime applies the request's cpu.mems, or, when the request sets none (a
// cpus-only or memory-only update), the container's stored spec's: the value from before the hook
// widened it. Either may drop a GPU node the container has now.
struct UpdateFacts {
  std::string spec_mems;               // the container's spec (Container.linux.resources.cpu.mems)
  std::optional<NodeSet> cgroup_mems;  // the container's cpuset.mems now, when its cgroup is readable
  NodeSet gpu_nodes;                   // memory nodes of the container's GPUs, online now
};
struct UpdateDecision {
  MemsUpdate mems;       // requested: what the runtime would apply ("" = leaves mems alone)
  bool from_spec = false;  // that value is the stored spec's (the request sets no mems)
  NodeSet current;       // the container's mems now, as decided
  bool current_assumed = false;  // no readable cgroup: spec ∪ GPU nodes, what the hook made at start
};
// The update's effective cpu.mems widened to keep the GPU nodes it would drop (keep_gpu_nodes), in
// a ContainerUpdate that names the container, sets cpu.mems only and ignore_failure: another NRI
// plugin that owns cpu.mems in this update wins, and the update goes on (never failed by us).
// nullopt when nothing would be dropped. Failure for a mems value that is not a node list.
std::optional<api::ContainerUpdate> keep_gpu_nodes_update(const std::string& container_id,
                                                          const api::LinuxResources& requested, const UpdateFacts& facts,
                                                          UpdateDecision* d);

}  // namespace gnh::nri
