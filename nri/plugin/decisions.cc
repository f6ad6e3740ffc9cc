#include "plugin/decisions.h"

#include "base/text.h"
#include "gpu/cdi_device_name.h"
#include "gpu/gpu_request.h"

namespace gnh::nri {

oci::Spec spec_of(const api::Container& c) {
  oci::Spec s;
  s.env.assign(c.env().begin(), c.env().end());
  for (const auto& m : c.mounts()) s.mounts.push_back({m.destination(), m.source()});
  for (const auto& [k, v] : c.annotations()) s.annotations.emplace(k, v);
  if (c.has_linux()) {
    for (const auto& d : c.linux().devices()) s.devices.push_back({d.path(), d.type(), d.major(), d.minor()});
    s.cgroups_path = c.linux().cgroups_path();
    if (c.linux().has_resources() && c.linux().resources().has_cpu() && !c.linux().resources().cpu().mems().empty())
      s.cpuset_mems = c.linux().resources().cpu().mems();
  }
  return s;
}

std::optional<std::string> effective_pod_annotation(const api::PodSandbox& pod, const std::string& key,
                                                    const std::string& container) {
  for (const std::string& k : {key + "/container." + container, key + "/pod", key}) {
    auto it = pod.annotations().find(k);
    if (it != pod.annotations().end()) return it->second;
  }
  return std::nullopt;
}

bool nvidia_nri_plugin_gives_gpu(const api::PodSandbox& pod, const api::Container& c) {
  auto names = effective_pod_annotation(pod, kNvidiaNriCdiAnnotation, c.name());
  return names && names_nvidia_gpu_cdi_device(*names);
}

bool cri_cdi_devices_give_gpu(const api::Container& c) {
  for (const api::CDIDevice& d : c.cdi_devices())
    if (names_nvidia_gpu_cdi_device(d.name())) return true;
  return false;
}

namespace {

// Ours by path, or by the program's name under another path (a hooks.d file naming
// /usr/bin/gpu-numa-hook while the plugin's copy lives elsewhere).
bool has_ours(const google::protobuf::RepeatedPtrField<api::Hook>& hooks, const HookSettings& hook) {
  for (const api::Hook& h : hooks) {
    if (h.path() == hook.path || base_name(h.path()) == "gpu-numa-hook") return true;
  }
  return false;
}

}  // namespace

std::optional<api::ContainerAdjustment> hook_adjustment(const api::Container& c, const api::PodSandbox& pod,
                                                        const HookSettings& hook) {
  // NVIDIA's plugin's GPU counts whatever our index: before ours its CDI devices are not in the
  // container we are shown, after ours not yet. The hook itself then finds the device nodes in
  // config.json, where containerd has put them.
  // Every form counts here: NVIDIA's runtime adds its legacy hook, which reads NVIDIA_VISIBLE_DEVICES,
  // after NRI; the hook itself then counts what config.json shows it (gpu/device_forms.h).
  if (!may_request_gpus(spec_of(c), every_device_form()) && !nvidia_nri_plugin_gives_gpu(pod, c) &&
      !cri_cdi_devices_give_gpu(c))
    return std::nullopt;
  // Ours already there: another plugin, a restart, or the runtime's hooks.d (CRI-O hands plugins
  // the container with its hooks.d hooks in it, a `prestart` entry placed at createRuntime by CRI-O
  // 1.37, at prestart by others): both run the same check at the same point, and a second would
  // only repeat it.
  if (c.has_hooks() && (has_ours(c.hooks().create_runtime(), hook) || has_ours(c.hooks().prestart(), hook)))
    return std::nullopt;
  api::ContainerAdjustment adj;
  api::Hook* h = adj.mutable_hooks()->add_create_runtime();
  h->set_path(hook.path);
  h->add_args("gpu-numa-hook");
  for (const auto& a : hook.extra_args) h->add_args(a);
  h->add_args("createRuntime");
  // The hook needs no environment of the container's; PATH only, for nothing it runs by name.
  h->add_env("PATH=/usr/sbin:/usr/bin:/sbin:/bin");
  h->mutable_timeout()->set_value(hook.timeout_s);
  return adj;
}

std::optional<std::string> created_without_hook(const api::PodSandbox& pod, const api::Container& c,
                                                const HookSettings& hook) {
  const oci::Spec spec = spec_of(c);
  const bool nvidia_nri = nvidia_nri_plugin_gives_gpu(pod, c);
  const bool cri_cdi = cri_cdi_devices_give_gpu(c);
  if (!may_request_gpus(spec, every_device_form()) && !nvidia_nri && !cri_cdi) return std::nullopt;
  if (c.has_hooks()) {
    const api::Hooks& h = c.hooks();
    for (const auto* stage : {&h.prestart(), &h.create_runtime(), &h.create_container(), &h.start_container()})
      if (has_ours(*stage, hook)) return std::nullopt;
  }
  std::string from;
  for (const std::string& s : resolve_gpu_request(spec, Inventory{}, every_device_form()).sources) from += (from.empty() ? "" : ",") + s;
  if (nvidia_nri) from += std::string(from.empty() ? "" : ",") + kNvidiaNriCdiAnnotation;
  if (cri_cdi) from += std::string(from.empty() ? "" : ",") + "CDI_devices";
  return from;
}

std::optional<api::ContainerUpdate> keep_gpu_nodes_update(const std::string& container_id,
                                                          const api::LinuxResources& requested, const UpdateFacts& facts,
                                                          UpdateDecision* d) {
  *d = {};
  std::string effective = requested.has_cpu() ? requested.cpu().mems() : "";
  if (effective.empty()) {
    effective = facts.spec_mems;
    d->from_spec = true;
  }
  if (effective.empty()) return std::nullopt;  // runc leaves mems alone: nothing is dropped
  if (facts.cgroup_mems) {
    d->current = *facts.cgroup_mems;
  } else {
    // Never the spec's value alone: that is what the hook widened. The hook made spec ∪ GPU nodes.
    auto spec = facts.spec_mems.empty() ? std::optional<NodeSet>(NodeSet{}) : NodeSet::parse(facts.spec_mems);
    d->current = spec ? *spec : NodeSet{};
    d->current |= facts.gpu_nodes;
    d->current_assumed = true;
  }
  d->mems = widen_mems_value(effective, d->current, facts.gpu_nodes);
  if (d->mems.kept.empty()) return std::nullopt;
  api::ContainerUpdate u;
  u.set_container_id(container_id);
  // Only cpu.mems: NRI gives each field one owner, and we claim no other.
  u.mutable_linux()->mutable_resources()->mutable_cpu()->set_mems(d->mems.widened);
  // A conflict with another plugin's cpu.mems drops this update instead of failing kubelet's.
  u.set_ignore_failure(true);
  return u;
}

}  // namespace gnh::nri
