#include "plugin/gpu_numa_plugin.h"

#include <chrono>

#include "base/error.h"
#include "gpu/gpu_request.h"
#include "cgroup/cgroup_prediction.h"
#include "host/cgroup/cgroup_locator.h"
#include "host/driver/driver_reader.h"
#include "host/fs/host_fs.h"

namespace gnh::nri {

namespace {

using Clock = std::chrono::steady_clock;
long long us_since(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count();
}

// The container's cpuset.mems now, from its cgroup: NRI's cgroups_path in either driver's form
// (a cgroupfs path, or systemd's "slice:prefix:name" expanded to the scope's path). nullopt where
// no such cgroup is readable. Read under the node's root: in the DaemonSet the node's cgroup tree
// is at /host/sys/fs/cgroup (read-only), its mount table the node's init's.
std::optional<NodeSet> cgroup_mems(const api::Container& c, const std::string& host_root, std::string* source) {
  const std::string raw = c.has_linux() ? c.linux().cgroups_path() : "";
  auto path = raw.empty() ? std::nullopt : cgroup_from_cgroups_path(raw);
  if (!path) return std::nullopt;
  try {
    HostFs fs(host_root);
    CpusetLocation loc =
        locate_cpuset_hierarchy(fs, *path, fs.is_real_root() ? "/proc/self/mountinfo" : "/proc/1/mountinfo");
    const std::string dir = loc.display();
    for (const char* file : {"cpuset.mems", "cpuset.mems.effective"}) {
      std::string f = dir + "/" + (loc.noprefix ? std::string(file).substr(7) : std::string(file));
      auto text = fs.read(f);
      if (text && text->find_first_not_of(" \n") != std::string::npos) {
        if (auto n = NodeSet::parse(*text)) {
          *source = fs.is_real_root() ? f : fs.resolve(f);
          return n;
        }
      }
    }
  } catch (const Error&) {
    // unreadable: the caller's stand-in applies
  }
  return std::nullopt;
}

}  // namespace

void GpuNumaPlugin::write(LogRecord r) const {
  r.program = "gpu-numa-nri";
  log_(r);
}

void GpuNumaPlugin::configured(const api::ConfigureRequest& req) {
  LogRecord r;
  r.stage = "nri-connect";
  r.action = "configured";
  r.msg = "configured by " + req.runtime_name() + " " + req.runtime_version() +
          (req.nri_version().empty() ? "" : " (NRI " + req.nri_version() + ")") + "; subscribed to CreateContainer, PostCreateContainer and UpdateContainer; request timeout " +
          std::to_string(req.request_timeout()) + " ms";
  write(r);
}

void GpuNumaPlugin::call_failed(const std::string& what) {
  LogRecord r;
  r.level = "error";
  r.stage = "nri-call";
  r.action = "error";
  r.msg = what;  // the session's sentence: the call, the container, what the runtime got
  write(r);
}

api::CreateContainerResponse GpuNumaPlugin::create_container(const api::CreateContainerRequest& req) {
  auto t0 = Clock::now();
  api::CreateContainerResponse resp;
  if (auto adj = hook_adjustment(req.container(), req.pod(), hook_)) {
    // A hook runc cannot exec fails the container: without it the container starts unprotected
    // instead, and says so (the state file too, for status and check).
    HookBinary hb = probe_hook_binary(hook_.path, hook_.host_root);
    if (hook_seen_) hook_seen_(hb);
    LogRecord r;
    r.container = req.container().id();
    r.stage = "nri-create";
    if (!hb.usable) {
      last_us_ = us_since(t0);
      r.level = "error";
      r.action = "unprotected";
      r.duration_us = last_us_;
      r.msg = "container may get GPUs but the hook " + hook_.path + " is not usable on this node (" + hb.problem +
              "): it starts WITHOUT the hook, its cpuset.mems unchecked (pod " + req.pod().namespace_() + "/" +
              req.pod().name() + ", container " + req.container().name() +
              "); put the hook back (the DaemonSet's init container copies it) or point --hook at it";
      if (!hb.unchecked.empty()) r.msg += " (the last check's verdict: this one could not look, " + hb.unchecked + ")";
      write(r);
      return resp;
    }
    *resp.mutable_adjust() = std::move(*adj);
    // A call already given up at its deadline was answered with no adjustment (and counted as
    // failed by the session): its hook never reaches the container.
    if (!BoundedCall::in_abandoned_job()) injections_.fetch_add(1, std::memory_order_relaxed);
    last_us_ = us_since(t0);
    r.action = "inject";
    r.duration_us = last_us_;
    r.msg = "container may get GPUs: added " + hook_.path + " at createRuntime (pod " + req.pod().namespace_() + "/" +
            req.pod().name() + ", container " + req.container().name() + ")";
    if (!hb.unchecked.empty()) {
      r.level = "warn";
      r.msg += "; the hook could not be checked (" + hb.unchecked + ", a shortage of this plugin's own): added as the last check found it";
    }
    write(r);
    return resp;
  }
  last_us_ = us_since(t0);
  return resp;
}

void GpuNumaPlugin::container_created(const api::PodSandbox& pod, const api::Container& c) {
  const std::optional<std::string> from = created_without_hook(pod, c, hook_);
  if (!from) return;
  LogRecord r;
  r.level = "error";
  r.container = c.id();
  r.stage = "nri-post-create";
  r.action = "unprotected";
  r.msg = "container was created with a GPU (from " + *from + ") and without the hook (pod " + pod.namespace_() + "/" +
          pod.name() + ", container " + c.name() +
          "): the GPU came after this plugin answered CreateContainer (another NRI plugin's adjustment, or the "
          "runtime's), so it starts with its cpuset.mems unchecked; have that plugin's pods request the GPU in a way "
          "this plugin sees (docs/nri.md), then restart the container";
  write(r);
}

std::optional<api::CreateContainerResponse> GpuNumaPlugin::create_from_request(const api::CreateContainerRequest& req) {
  auto t0 = Clock::now();
  if (hook_adjustment(req.container(), req.pod(), hook_)) return std::nullopt;
  last_us_ = us_since(t0);
  return api::CreateContainerResponse();
}

bool GpuNumaPlugin::update_may_drop_gpu_nodes(const api::UpdateContainerRequest& req, const oci::Spec& spec) {
  const bool request_mems = req.has_linux_resources() && req.linux_resources().has_cpu() &&
                            !req.linux_resources().cpu().mems().empty();
  // Nothing can be dropped when neither the request nor the stored spec sets mems.
  // Every form counts: NRI's view has no hook the runtime adds (NVIDIA's legacy one), and keeping
  // a node never adds one the container does not have (runtime/update_mems.h).
  return may_request_gpus(spec, every_device_form()) && (request_mems || !spec.cpuset_mems.value_or("").empty());
}

std::optional<api::UpdateContainerResponse> GpuNumaPlugin::update_from_request(const api::UpdateContainerRequest& req) {
  auto t0 = Clock::now();
  if (update_may_drop_gpu_nodes(req, spec_of(req.container()))) return std::nullopt;
  last_us_ = us_since(t0);
  return api::UpdateContainerResponse();
}

api::UpdateContainerResponse GpuNumaPlugin::update_container(const api::UpdateContainerRequest& req) {
  auto t0 = Clock::now();
  api::UpdateContainerResponse resp;
  const api::Container& c = req.container();
  oci::Spec spec = spec_of(c);
  if (!update_may_drop_gpu_nodes(req, spec)) {
    last_us_ = us_since(t0);
    return resp;
  }
  LogRecord r;
  r.container = c.id();
  r.stage = "nri-update";
  try {
    // The driver's files under the node's root, as the cgroup: in the DaemonSet /host is the
    // node's / bound recursively, so /host/proc/driver/nvidia and /host/sys are the node's (the
    // same files the pod's own procfs and sysfs show on a real node).
    HostFs fs(hook_.host_root);
    Inventory inv = read_inventory(fs, cfg_.overrides);
    GpuRequest gpus = resolve_gpu_request(spec, inv, every_device_form());
    UpdateFacts facts;
    facts.spec_mems = spec.cpuset_mems.value_or("");
    std::string label;
    for (size_t i : gpus.gpus) {
      const Gpu& g = inv.gpus[i];
      // Online nodes only: a node that is not online cannot be kept (runc's write would fail).
      if (g.memory_node && g.memory_online()) facts.gpu_nodes.add(*g.memory_node);
      label += (label.empty() ? "" : ",") + g.device_path() + "(" + g.bus_id + ")";
    }
    std::string source;
    facts.cgroup_mems = cgroup_mems(c, hook_.host_root, &source);
    UpdateDecision d;
    if (auto u = keep_gpu_nodes_update(c.id(), req.linux_resources(), facts, &d)) {
      *resp.add_update() = std::move(*u);
      r.level = "warn";
      r.action = "patch";
      r.gpus = label.empty() ? "-" : label;
      r.required = facts.gpu_nodes.to_display();
      r.mems_before = d.current.to_display();
      r.mems_after = d.mems.widened;
      r.cgroup = d.current_assumed ? "assumed: the spec's mems and the GPU nodes (no readable cgroup)" : source;
      r.msg = std::string(d.from_spec ? "update sets no cpuset.mems, so the runtime re-applies the spec's " +
                                            d.mems.requested + " (from before the hook widened it)"
                                      : "update asked for cpuset.mems " + d.mems.requested) +
              ", which drops GPU memory node(s) " + d.mems.kept.to_display() + " the container has now; asking for " +
              d.mems.widened +
              " instead (ignore_failure: if another NRI plugin sets cpu.mems in this update, its value stands; "
              "check reports a GPU node lost: see docs/nri.md)";
      last_us_ = us_since(t0);
      r.duration_us = last_us_;
      write(r);
    }
  } catch (const Error& e) {
    // The update is kubelet's, not ours: it goes on unchanged (fail-open), and the log says so.
    r.level = "error";
    r.action = "allow";
    r.msg = std::string("cannot check the update, it goes on unchanged: ") + e.what();
    last_us_ = us_since(t0);
    r.duration_us = last_us_;
    write(r);
  }
  last_us_ = us_since(t0);
  return resp;
}

}  // namespace gnh::nri
