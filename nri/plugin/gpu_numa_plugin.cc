#include "plugin/gpu_numa_plugin.h"

#include <chrono>

#include "base/error.h"
#include "gpu/gpu_request.h"
#include "host/cgroup/cgroup_locator.h"
#include "host/driver/driver_reader.h"
#include "host/fs/host_fs.h"

namespace gnh::nri {

namespace {

using Clock = std::chrono::steady_clock;
long long us_since(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count();
}

// The container's cpuset.mems now, from its cgroup when NRI gives a plain cgroupfs path (the
// cgroupfs driver); else the mems its spec asked for; else nullopt. The systemd driver's
// "slice:prefix:name" form is not mapped here.
std::optional<NodeSet> current_mems(const api::Container& c, std::string* source) {
  const std::string path = c.has_linux() ? c.linux().cgroups_path() : "";
  if (!path.empty() && path[0] == '/' && path.find("..") == std::string::npos) {
    try {
      HostFs fs("/");
      CpusetLocation loc = locate_cpuset_hierarchy(fs, path);
      const std::string dir = loc.display();
      for (const char* file : {"cpuset.mems", "cpuset.mems.effective"}) {
        std::string f = dir + "/" + (loc.noprefix ? std::string(file).substr(7) : std::string(file));
        auto text = fs.read(f);
        if (text && text->find_first_not_of(" \n") != std::string::npos) {
          if (auto n = NodeSet::parse(*text)) {
            *source = f;
            return n;
          }
        }
      }
    } catch (const Error&) {
      // fall through to the spec's value
    }
  }
  if (c.has_linux() && c.linux().has_resources() && c.linux().resources().has_cpu() &&
      !c.linux().resources().cpu().mems().empty()) {
    if (auto n = NodeSet::parse(c.linux().resources().cpu().mems())) {
      *source = "the container's spec";
      return n;
    }
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
          "; subscribed to CreateContainer and UpdateContainer; request timeout " +
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
  if (auto adj = hook_adjustment(req.container(), hook_)) {
    *resp.mutable_adjust() = std::move(*adj);
    last_us_ = us_since(t0);
    LogRecord r;
    r.container = req.container().id();
    r.stage = "nri-create";
    r.action = "inject";
    r.duration_us = last_us_;
    r.msg = "container may get GPUs: added " + hook_.path + " at createRuntime (pod " + req.pod().namespace_() + "/" +
            req.pod().name() + ", container " + req.container().name() + ")";
    write(r);
    return resp;
  }
  last_us_ = us_since(t0);
  return resp;
}

api::UpdateContainerResponse GpuNumaPlugin::update_container(const api::UpdateContainerRequest& req) {
  auto t0 = Clock::now();
  api::UpdateContainerResponse resp;
  const api::Container& c = req.container();
  oci::Spec spec = spec_of(c);
  if (!may_request_gpus(spec) || !req.has_linux_resources() || !req.linux_resources().has_cpu() ||
      req.linux_resources().cpu().mems().empty()) {
    last_us_ = us_since(t0);
    return resp;
  }
  LogRecord r;
  r.container = c.id();
  r.stage = "nri-update";
  try {
    HostFs fs("/");
    Inventory inv = read_inventory(fs, cfg_.overrides);
    GpuRequest gpus = resolve_gpu_request(spec, inv);
    NodeSet gpu_nodes;
    std::string label;
    for (size_t i : gpus.gpus) {
      const Gpu& g = inv.gpus[i];
      if (g.memory_node) gpu_nodes.add(*g.memory_node);
      label += (label.empty() ? "" : ",") + g.device_path() + "(" + g.bus_id + ")";
    }
    std::string source;
    // Without the container's mems now, its GPU nodes stand in: the hook put them there at start.
    NodeSet current = current_mems(c, &source).value_or(gpu_nodes);
    if (source.empty()) source = "assumed (no readable cgroup)";
    MemsUpdate mems;
    if (auto u = widen_update(c.id(), req.linux_resources(), current, gpu_nodes, &mems)) {
      *resp.add_update() = std::move(*u);
      r.level = "warn";
      r.action = "patch";
      r.gpus = label.empty() ? "-" : label;
      r.required = gpu_nodes.to_display();
      r.mems_before = current.to_display();
      r.mems_after = mems.widened;
      r.cgroup = source;
      r.msg = "update asked for cpuset.mems " + mems.requested + ", which drops GPU memory node(s) " +
              mems.kept.to_display() + " the container has now; asking for " + mems.widened +
              " instead (if another NRI plugin also sets cpu.mems, containerd refuses the update as a conflict: "
              "see docs/nri.md)";
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
