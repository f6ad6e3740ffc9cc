#include "check/check_report.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "report/json_schema.h"
#include "systemd/allowed_nodes_probe.h"

namespace gnh {

namespace {

using nlohmann::json;

std::string pad(std::string s, size_t w) {
  if (s.size() < w) s.resize(w, ' ');
  return s + "  ";
}

std::string tasks_text(long n) { return n < 0 ? "?" : std::to_string(n); }

// One table of cgroups: the columns are sized from the rows so long Kubernetes paths stay readable;
// `last` is an optional extra column (the GPU table's STALE).
struct Row {
  std::string path, mems, missing, tasks, last;
};

std::string cgroup_table(const std::vector<Row>& rows, const std::string& last_header) {
  size_t wp = 6, wm = 4, wx = 7, wt = 5;
  for (const auto& r : rows) {
    wp = std::max(wp, r.path.size());
    wm = std::max(wm, r.mems.size());
    wx = std::max(wx, r.missing.size());
  }
  auto line = [&](const Row& r) {
    std::string l = "  " + pad(r.path, wp) + pad(r.mems, wm) + pad(r.missing, wx);
    return (last_header.empty() ? l + r.tasks : l + pad(r.tasks, wt) + r.last) + "\n";
  };
  std::string out = line({"CGROUP", "MEMS", "MISSING", "TASKS", last_header});
  for (const auto& r : rows) out += line(r);
  return out;
}

// Each cgroup once, whatever it was found for: stale (the fix widens it), lacking a GPU memory
// node, or both. Sorted by path, which keeps parents before children.
std::string cgroup_rows(const CheckResult& r, const CheckFindings& f) {
  std::map<std::string, Row> rows;
  for (const auto& s : f.stale)
    rows[s.path] = {s.path, s.mems.to_display(), s.missing.to_string(), tasks_text(r.tasks_of(s.path)), "yes"};
  for (const auto& g : f.missing_gpu_node) {
    auto [it, fresh] = rows.try_emplace(g.path, Row{g.path, g.mems.to_display(), g.missing.to_string(),
                                                    tasks_text(r.tasks_of(g.path)), "no (narrowed on purpose?)"});
    if (!fresh) {  // stale too: what it lacks from its parent and the GPU nodes, together
      const StaleCgroup* s = nullptr;
      for (const auto& x : f.stale)
        if (x.path == g.path) s = &x;
      if (s) it->second.missing = (s->missing | g.missing).to_string();
    }
  }
  std::vector<Row> list;
  for (auto& [path, row] : rows) list.push_back(std::move(row));
  return cgroup_table(list, "STALE");
}

std::string problems_text(const CheckResult& r, const CheckFindings& f) {
  std::string s;
  s += "stale cgroups (lacking nodes their parent has): " + std::to_string(f.stale.size()) + "\n";
  s += "cgroups lacking a GPU memory node (" + f.gpu_online.to_display() + "): " +
       std::to_string(f.missing_gpu_node.size()) + "\n";
  if (!f.stale.empty() || !f.missing_gpu_node.empty()) s += cgroup_rows(r, f);
  s += "GPU memory nodes not online: " + std::to_string(f.gpu_offline.size()) + "\n";
  for (const auto& g : f.gpu_offline)
    s += "  node " + (g.node >= 0 ? std::to_string(g.node) : std::string("?")) + "  " + g.gpu + " (" + g.bus_id + ")  " + g.why + "\n";
  s += "online nodes missing from the root cpuset: " + f.root_missing.to_display() + "\n";
  return s;
}

std::string config_text(const CheckResult& r) {
  if (r.config_file.empty()) return "config: none (built-in defaults)\n";
  if (r.config_problems.empty()) return "config " + r.config_file + ": valid\n";
  std::string s = "config " + r.config_file + ": " + std::to_string(r.config_problems.size()) +
                  " problems, the hook ignores these keys (their defaults apply):\n";
  for (const auto& p : r.config_problems)
    s += "  " + (p.line > 0 ? "line " + std::to_string(p.line) + ": " : std::string()) + p.key + ": " + p.what + "\n";
  return s;
}

json stale_json(const CheckResult& r, const CheckFindings& f) {
  json a = json::array();
  for (const auto& s : f.stale)
    a.push_back({{"path", s.path}, {"mems", s.mems.to_string()}, {"missing", s.missing.to_string()},
                 {"expected", s.expected.to_string()}, {"tasks", r.tasks_of(s.path)}});
  return a;
}

json gpu_json(const CheckResult& r, const CheckFindings& f) {
  json a = json::array();
  for (const auto& g : f.missing_gpu_node)
    a.push_back({{"path", g.path}, {"mems", g.mems.to_string()}, {"missing", g.missing.to_string()},
                 {"stale", g.stale}, {"tasks", r.tasks_of(g.path)}});
  return a;
}

json offline_json(const CheckFindings& f) {
  json a = json::array();
  for (const auto& g : f.gpu_offline)
    a.push_back({{"gpu", g.gpu}, {"bus_id", g.bus_id}, {"node", g.node >= 0 ? json(g.node) : json(nullptr)}, {"status", g.status},
                 {"state", to_string(g.state)}});
  return a;
}

json findings_json(const CheckResult& r, const CheckFindings& f) {
  return {{"cgroups", f.cgroups},
          {"root_mems", f.root_mems.to_string()},
          {"host_memory_nodes", f.host_memory.to_string()},
          {"gpu_memory_nodes_online", f.gpu_online.to_string()},
          {"stale_cgroups", stale_json(r, f)},
          {"cgroups_missing_gpu_node", gpu_json(r, f)},
          {"gpu_memory_nodes_offline", offline_json(f)},
          {"root_missing_nodes", f.root_missing.to_string()},
          {"problems", f.problems()}};
}

}  // namespace

NodeSet onlining_nodes(const CheckFindings& f) {
  NodeSet n;
  for (const auto& g : f.gpu_offline)
    if ((g.state == GpuMemoryState::offline || g.state == GpuMemoryState::not_in_kernel) && g.node >= 0) n.add(g.node);
  return n;
}

NextStep next_step(const CheckResult& r) {
  const CheckFindings& f = r.left();
  for (const auto& g : f.gpu_offline)
    if (g.state == GpuMemoryState::offline || g.state == GpuMemoryState::not_in_kernel) return NextStep::wait;
  if (!r.fix && !f.stale.empty()) return NextStep::fix;
  return NextStep::none;
}

std::string check_text(const CheckResult& r) {
  const CheckFindings& f = r.found;
  std::string s = "cpuset hierarchy: " + std::string(to_string(f.version)) + " at " + f.mount_point + ", " +
                  std::to_string(f.cgroups) + " cgroups\n";
  s += "host memory nodes: " + f.host_memory.to_display() + "   root cpuset.mems: " + f.root_mems.to_display() +
       "   GPU memory nodes online: " + f.gpu_online.to_display() + "\n";
  s += config_text(r);
  s += problems_text(r, f);
  if (r.nri_problem) s += *r.nri_problem + "\n";
  else if (r.nri_applicable) s += "NRI plugin: connected to " + r.nri_runtime + "\n";
  if (r.nri_hook_problem) s += *r.nri_hook_problem + "\n";
  if (r.fix) {
    s += "fix: " + std::to_string(r.fix->fixed()) + " cgroups widened, " + std::to_string(r.fix->failed()) + " failed";
    if (r.fix->removed()) s += ", " + std::to_string(r.fix->removed()) + " skipped (removed while check ran)";
    if (r.fix->busy()) s += ", " + std::to_string(r.fix->busy()) + " left alone (running tasks)";
    s += "\n";
    if (!r.fix->error.empty()) s += "  not run: " + r.fix->error + "\n";
    for (const auto& x : r.fix->results) {
      if (!x.error.empty()) s += "  FAILED " + x.path + ": " + x.error + "\n";
      else if (x.removed) s += "  skipped " + x.path + ": removed while check ran (a container exited)\n";
      else if (x.busy_tasks > 0)
        s += "  left alone " + x.path + ": " + std::to_string(x.busy_tasks) + " running task(s); widening " +
             x.before.to_display() + " to " + x.planned.to_display() +
             " adds a node below one they have, and the kernel would remap their bound memory to other nodes; "
             "restart that container instead\n";
      else if (x.written) s += "  " + x.path + "  " + x.before.to_display() + " -> " + x.after.to_display() + "\n";
      else s += "  " + x.path + "  " + x.before.to_display() + " (already fixed or gone)\n";
    }
  }
  if (r.after) {
    s += "after the fix:\n";
    s += problems_text(r, *r.after);
  }
  s += lost_gpu_nodes_text(r.lost);
  if (!r.container_fixes.empty() || !r.systemd_updates.empty()) {
    s += container_fixes_text(r.container_fixes);
    for (const auto& u : r.systemd_updates) {
      std::string value = u.nodes.to_string();
      if (u.unsupported)
        s += "  systemd: " + no_allowed_memory_nodes_text(u.unit) + "\n";
      else if (u.error.empty())
        s += "  systemd: " + u.unit + " AllowedMemoryNodes=" + value + " (runtime)\n";
      else
        s += "  systemd: FAILED to set " + u.unit + " AllowedMemoryNodes=" + value + ": " + u.error +
             "; its next daemon-reload can undo the fix; run: systemctl set-property --runtime " + u.unit +
             " AllowedMemoryNodes=" + value + "\n";
    }
  }
  if (r.lost_after) s += "after the fix: " + lost_gpu_nodes_text(*r.lost_after);
  if (r.unprotected) s += unprotected_text(*r.unprotected);
  if (r.exit_code() == 0) return s + (r.fix ? "result: fixed\n" : "result: clean\n");
  s += "result: " + std::to_string(r.problems()) + " problems";
  const NextStep step = next_step(r);
  if (step == NextStep::wait) {
    s += "; GPU memory still coming online (node " + onlining_nodes(r.left()).to_display() +
         "): 'gpu-numa-hook wait' returns once it is usable";
    if (!r.left().stale.empty()) s += ", then 'gpu-numa-hook check --fix' widens the stale cgroups";
  } else if (step == NextStep::fix) {
    s += "; 'gpu-numa-hook check --fix' widens the stale cgroups";
  }
  if (!r.lost_left().empty() && !r.fix) s += "; 'gpu-numa-hook check --fix' re-patches the containers that lost a GPU node";
  if (!r.config_problems.empty()) s += "; fix the config (gpu-numa-hook config check)";
  if (r.nri_problem) s += "; start gpu-numa-nri (docs/nri.md)";
  if (r.nri_hook_problem) s += "; put back the hook gpu-numa-nri injects (docs/nri.md)";
  return s + "\n";
}

std::string check_json(const CheckResult& r) {
  json j = findings_json(r, r.found);
  j["schema_version"] = kJsonSchemaVersion;
  j["cgroup_version"] = to_string(r.found.version);
  j["mount_point"] = r.found.mount_point;
  if (r.fix) {
    json results = json::array();
    for (const auto& x : r.fix->results)
      results.push_back({{"path", x.path}, {"before", x.before.to_string()}, {"after", x.after.to_string()},
                         {"written", x.written}, {"removed", x.removed}, {"busy_tasks", x.busy_tasks}, {"error", x.error.empty() ? json(nullptr) : json(x.error)}});
    j["fix"] = {{"results", results}, {"fixed", r.fix->fixed()}, {"failed", r.fix->failed()}, {"removed", r.fix->removed()}, {"busy", r.fix->busy()},
                {"error", r.fix->error.empty() ? json(nullptr) : json(r.fix->error)}};
  } else {
    j["fix"] = nullptr;
  }
  j["after_fix"] = r.after ? findings_json(r, *r.after) : json(nullptr);
  auto lost_json = [](const std::vector<LostGpuNode>& lost) {
    json a = json::array();
    for (const auto& l : lost)
      a.push_back({{"container", l.id}, {"cgroup", l.cgroup}, {"gpus", l.gpus}, {"mems", l.mems.to_string()},
                   {"missing", l.missing.to_string()}});
    return a;
  };
  j["containers_lost_gpu_node"] = lost_json(r.lost);
  j["containers_lost_gpu_node_after_fix"] = r.lost_after ? lost_json(*r.lost_after) : json(nullptr);
  json fixes = json::array();
  for (const auto& c : r.container_fixes)
    fixes.push_back({{"container", c.id}, {"cgroup", c.cgroup}, {"before", c.before.to_string()}, {"after", c.after.to_string()},
                     {"written", c.written}, {"busy", c.busy}, {"error", c.error.empty() ? json(nullptr) : json(c.error)}});
  j["container_fixes"] = fixes;
  if (r.unprotected) {
    json a = json::array();
    for (const auto& c : r.unprotected->containers)
      a.push_back({{"container", c.id}, {"runtime", c.runtime}, {"root", c.root},
                   {"pod", c.names.pod().empty() ? json(nullptr) : json(c.names.pod())},
                   {"container_name", c.names.container_name.empty() ? json(nullptr) : json(c.names.container_name)},
                   {"sources", c.sources}});
    j["unprotected_gpu_containers"] = a;
  } else {
    j["unprotected_gpu_containers"] = nullptr;
  }
  json units = json::array();
  for (const auto& u : r.systemd_updates)
    units.push_back({{"unit", u.unit}, {"allowed_memory_nodes", u.nodes.to_string()},
                     {"error", u.error.empty() ? json(nullptr) : json(u.error)},
                     {"unsupported", u.unsupported}});  // not sent: this systemd has no such property
  j["systemd_updates"] = units;
  j["nri_plugin"] = r.nri_applicable ? json{{"connected", !r.nri_problem},
                                             {"problem", r.nri_problem ? json(*r.nri_problem) : json(nullptr)},
                                             {"hook_problem", r.nri_hook_problem ? json(*r.nri_hook_problem) : json(nullptr)}}
                                       : json(nullptr);
  json problems = json::array();
  for (const auto& p : r.config_problems)
    problems.push_back({{"line", p.line > 0 ? json(p.line) : json(nullptr)}, {"key", p.key}, {"message", p.what}});
  j["config"] = {{"file", r.config_file.empty() ? json(nullptr) : json(r.config_file)},
                 {"valid", r.config_problems.empty()},
                 {"problems", problems}};
  const NextStep step = next_step(r);
  j["next_step"] = step == NextStep::wait ? json("wait") : step == NextStep::fix ? json("fix") : json(nullptr);
  j["exit_code"] = r.exit_code();
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

}  // namespace gnh
