#include "report/report.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "cgroup/cgroup_location.h"
#include "gpu/self_onlining.h"

namespace gnh {

namespace {

using nlohmann::json;

json opt_int(const std::optional<int>& v) { return v ? json(*v) : json(nullptr); }
json opt_str(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }

json gpu_json(const Gpu& g) {
  json j = {{"minor", g.minor},
          {"device", g.device_path()},
          {"bus_id", g.bus_id},
          {"uuid", g.uuid},
          {"model", g.model},
          {"memory_node", opt_int(g.memory_node)},
          {"memory_status", opt_str(g.memory_status)},
          {"affinity_node", opt_int(g.affinity_node)},
          {"memory_error", g.memory_read_error.empty() ? json(nullptr) : json(g.memory_read_error)},
          {"overridden", g.overridden},
          {"self_onlining", g.self_onlining}};
  // MIG in NUMA mode with the NVML cache: the container's instances and their nodes.
  if (!g.mig_instances.empty()) {
    json migs = json::array();
    for (const auto& m : g.mig_instances)
      migs.push_back({{"uuid", m.uuid}, {"index", m.index}, {"gpu_instance_id", m.gpu_instance_id},
                      {"compute_instance_id", m.compute_instance_id}, {"memory_node", opt_int(m.memory_node)}});
    j["mig_instances"] = migs;
  }
  return j;
}

std::string node_or_dash(const std::optional<int>& v) { return v ? std::to_string(*v) : "-"; }

std::string pad(std::string s, size_t w) {
  if (s.size() < w) s.resize(w, ' ');
  return s;
}

json requirement_json(const RequirementCheck& r) {
  return {{"state", to_string(r.state)},
          {"requirement", r.requirement.empty() ? json(nullptr) : json(r.requirement)},
          {"host", r.host.empty() ? json(nullptr) : json(r.host)},
          {"message", r.message.empty() ? json(nullptr) : json(r.message)}};
}

}  // namespace

json cuda_facts_json(const HostFacts& host) {
  return {{"driver_version", host.driver ? json(host.driver->to_string()) : json(nullptr)},
          {"cuda_version", host.cuda ? json(host.cuda->to_display()) : json(nullptr)},
          {"cuda_version_source", host.cuda ? json(host.cuda->source) : json(nullptr)}};
}

std::string explain_json(const Evaluation& ev, const ContainerNames& names) {
  json gpus = json::array();
  for (const auto& g : ev.gpus) gpus.push_back(gpu_json(g));
  auto or_null = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
  json j = {{"schema_version", kJsonSchemaVersion},
            {"pod_namespace", or_null(names.pod_namespace)},
            {"pod_name", or_null(names.pod_name)},
            {"container_name", or_null(names.container_name)},
            {"gpus", gpus},
            {"gpu_requested", ev.gpu_requested},
            {"request_sources", ev.sources},
            {"unresolved", ev.unresolved},
            {"cgroup", ev.location ? json(ev.location->path) : json(nullptr)},
            {"cgroup_dir", ev.location ? json(ev.location->display()) : json(nullptr)},
            {"cgroup_version", ev.location ? json(to_string(ev.location->version)) : json(nullptr)},
            {"cgroup_predicted", ev.cgroup_predicted},
            {"mems", ev.mems.effective.to_string()},
            {"mems_configured", ev.mems.configured.to_string()},
            {"root_mems", ev.root_mems.to_string()},
            {"host_memory_nodes", ev.host_memory_nodes.to_string()},
            {"memory_mode", to_string(ev.memory_mode.mode)},
            {"required", ev.decision.required.to_string()},
            {"preferred", ev.decision.preferred.to_string()},
            {"missing", ev.decision.missing.to_string()},
            {"to_add", ev.decision.to_add.to_string()},
            {"action", to_string(ev.decision.action)},
            {"message", ev.decision.message},
            {"cuda_requirement", requirement_json(ev.requirement)}};
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

std::string explain_text(const Evaluation& ev, const ContainerNames& names) {
  std::string s;
  if (!names.empty())
    s += "pod:       " + (names.pod().empty() ? std::string("-") : names.pod()) +
         (names.container_name.empty() ? "" : " (container " + names.container_name + ")") + "\n";
  s += "action:    " + std::string(to_string(ev.decision.action)) + "\n";
  s += "message:   " + ev.decision.message + "\n";
  s += "gpus:      " + ev.gpu_list() + "\n";
  if (!ev.gpu_requested) return s;
  if (!ev.requirement.host.empty()) s += "cuda:      " + ev.requirement.host + "\n";
  s += "require:   " + std::string(to_string(ev.requirement.state)) +
       (ev.requirement.requirement.empty() ? "" : ": " + ev.requirement.requirement) + "\n";
  s += "memory:    " + memory_mode_line(ev.memory_mode) + "\n";
  if (ev.location)
    s += "cgroup:    " + ev.location->display() + " (" + to_string(ev.location->version) +
         (ev.cgroup_predicted ? ", not created yet: values of its nearest existing parent" : "") + ")\n";
  s += "mems:      " + ev.mems.effective.to_display() + "\n";
  s += "required:  " + ev.decision.required.to_display() + "\n";
  s += "preferred: " + ev.decision.preferred.to_display() + "\n";
  s += "missing:   " + ev.decision.missing.to_display() + "\n";
  return s;
}

std::string topology_json(const Inventory& inv, const NodeSet& memory_nodes, const DriverMemoryMode& mode,
                          const std::string& auto_online_blocks, const HostFacts* cuda) {
  json gpus = json::array();
  for (const auto& g : inv.gpus) gpus.push_back(gpu_json(g));
  json j = {{"schema_version", kJsonSchemaVersion},
            {"gpus", gpus},
            {"memory_nodes", memory_nodes.to_string()},
            {"memory_mode", to_string(mode.mode)},
            {"memory_mode_param", mode.params_line.empty() ? json(nullptr) : json(mode.params_line)},
            {"user_numa_management_param",
             mode.user_numa_off_line.empty() ? json(nullptr) : json(mode.user_numa_off_line)},
            {"auto_online_blocks", auto_online_blocks.empty() ? json(nullptr) : json(auto_online_blocks)}};
  if (cuda) j["driver"] = cuda_facts_json(*cuda);
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

std::string memory_mode_line(const DriverMemoryMode& mode) {
  std::string s = std::string("driver memory mode: ") + to_string(mode.mode);
  std::string lines = mode.user_numa_off_line;
  if (!mode.params_line.empty()) lines += (lines.empty() ? "" : ", ") + mode.params_line;
  if (!lines.empty()) s += " (" + lines + ")";
  if (mode.mode == MemoryMode::driver) s += ": GPU memory is not a NUMA node (CDMM), nothing to guard";
  return s;
}

std::string topology_text(const Inventory& inv, const NodeSet& memory_nodes, const DriverMemoryMode& mode,
                          const std::string& auto_online_blocks, const HostFacts* cuda) {
  std::string s = "host memory nodes: " + memory_nodes.to_display() + "\n";
  s += memory_mode_line(mode) + "\n";
  if (cuda && cuda->driver) s += describe_host(*cuda) + "\n";
  if (inv.gpus.empty()) return s + "no NVIDIA GPU (no /proc/driver/nvidia/gpus entries)\n";
  s += pad("INDEX", 6) + pad("DEVICE", 14) + pad("BUS ID", 14) + pad("MEMORY NODE", 13) + pad("STATUS", 20) +
       pad("NEAREST", 9) + "UUID\n";
  for (size_t i = 0; i < inv.gpus.size(); ++i) {
    const Gpu& g = inv.gpus[i];
    s += pad(std::to_string(i), 6) + pad(g.device_path(), 14) + pad(g.bus_id, 14) + pad(node_or_dash(g.memory_node), 13) +
         pad(g.memory_read_errno ? "unreadable" : g.memory_status.value_or("-"), 20) + pad(node_or_dash(g.affinity_node), 9) + g.uuid +
         (g.overridden ? "  (config override)" : "") + "\n";
    if (g.memory_read_errno) s += "      " + g.memory_read_error + "\n";
    // MIG in NUMA mode: the instances the NVML cache names, each with its own memory node.
    for (const auto& m : g.mig_instances)
      s += "      MIG " + pad(m.index, 6) + "GI " + pad(std::to_string(m.gpu_instance_id), 3) + "CI " +
           pad(std::to_string(m.compute_instance_id), 3) + "memory node " + pad(node_or_dash(m.memory_node), 6) + m.uuid +
           "\n";
    if (g.self_onlining && g.memory_status && *g.memory_status == "offline") {
      s += "      " + not_initialized_text() + ": the driver adds its memory at the GPU's first client\n";
      if (!auto_online_blocks.empty() && auto_online_blocks != kAutoOnlineNeeded)
        s += "      " + wont_online_text(auto_online_blocks) + "\n";
    }
  }
  return s;
}

}  // namespace gnh
