// `check`: walks the whole cpuset hierarchy, reports stale cgroups and GPU node gaps, optionally
// fixes them under the hook's lock, and exports metrics for node_exporter.
#include <chrono>
#include <cstdio>
#include <exception>
#include <optional>

#include "base/error.h"
#include "base/exit_code.h"
#include "check/check_report.h"
#include "check/findings.h"
#include "check/metrics.h"
#include "check/nri_plugin_state.h"
#include "cli/commands.h"
#include "cli/tool_error.h"
#include "host/fs/atomic_file.h"
#include "host/check/check_fix.h"
#include "host/cgroup/cgroup_locator.h"
#include "host/config/config_loader.h"
#include "host/cgroup/cpuset_walk.h"
#include "host/log/event_log.h"
#include "host/driver/driver_reader.h"
#include "host/check/nri_state_reader.h"
#include "host/decide/decision_counter.h"
#include "host/driver/nvml_cache_reader.h"
#include "host/check/running_containers.h"
#include "host/check/container_specs.h"
#include "host/systemd/systemd_durable.h"
#include "systemd/allowed_nodes_probe.h"

namespace gnh {

namespace {

// GPUs in MIG state (numa_status EIO): their instances' nodes from the NVML cache, when current.
void add_mig_instances(const HostFs& fs, const Config& config, Inventory& inv, std::vector<std::string>* unknown) {
  std::string problem = add_cached_mig_instances(fs, config.nvml.cache_path(), inv, unknown);
  if (!problem.empty())
    std::fprintf(stderr, "gpu-numa-hook: check: GPUs in MIG mode, their instances' memory nodes unknown: %s\n",
                 problem.c_str());
}

HostNodes read_host_nodes(const HostFs& fs, const Config& config, std::vector<std::string>* mig_unknown) {
  Inventory inv = read_numa_inventory(fs, config.overrides, ReadErrors::record);
  add_mig_instances(fs, config, inv, mig_unknown);
  NodeSet memory = read_memory_nodes(fs);
  std::optional<NodeSet> cpus;
  if (auto text = fs.read("/sys/devices/system/node/has_cpu")) {
    std::string why;
    cpus = NodeSet::parse(*text, &why);
    if (!cpus) fail("cannot parse " + fs.resolve("/sys/devices/system/node/has_cpu") + ": " + why);
  }
  return host_nodes_from(inv, memory, cpus ? &*cpus : nullptr, read_possible_nodes(fs),
                         any_self_onlining_offline(inv.gpus) ? read_auto_online_blocks(fs) : std::string());
}

// Only the reported cgroups: counting tasks everywhere would cost a read per cgroup for nothing.
void count_tasks(const CpusetTree& tree, const CheckFindings& f, std::map<std::string, long>* tasks) {
  auto count = [&](const std::string& path) {
    if (!tasks->count(path)) (*tasks)[path] = tree.task_count(path);
  };
  for (const auto& s : f.stale) count(s.path);
  for (const auto& g : f.missing_gpu_node) count(g.path);
}

// Where systemd owns the cgroups, what --fix wrote becomes the units' AllowedMemoryNodes= too, as
// after the hook's patch: else the next daemon-reload undoes the fix (docs/platforms/systemd.md).
void tell_systemd_about_fix(const HostFs& fs, const Config& config, const CpusetLocation& loc, const CpusetTree& tree,
                            CheckResult& r) {
  if (!r.fix || !config.systemd_allowed_memory_nodes || !systemd_owns_cgroups(fs, loc)) return;
  std::vector<PatchStep> written;
  for (const auto& x : r.fix->results)
    if (x.written) written.push_back({x.path, x.before, x.after});
  Deadline deadline(std::chrono::milliseconds(config.deadline_ms));
  for (auto& u : tell_systemd(fs, tree, written, fs.resolve(config.lock_path), deadline)) r.systemd_updates.push_back(u);
}

// Running GPU containers that lost a GPU memory node.
std::vector<LostGpuNode> find_lost(const HostFs& fs, const Config& config, const CpusetTree& tree, const HostNodes& nodes) {
  return find_lost_gpu_nodes(find_running_gpu_containers(fs, config, tree), nodes.gpu_online, config.policy.explicit_mems);
}

// --fix for them, after the stale cgroups' fix (which may have healed them already: each is re-read).
void fix_lost(const HostFs& fs, const Config& config, const CpusetLocation& loc, const CpusetTree& tree,
              const HostNodes& nodes, CheckResult& r) {
  if (r.lost.empty()) return;
  for (const auto& l : r.lost) r.container_fixes.push_back(fix_lost_gpu_node(fs, config, tree, loc, l, &r.systemd_updates));
  r.lost_after = find_lost(fs, config, tree, nodes);
}

// Every write `check --fix` makes, and each it could not make, in the log the hook writes to: a
// change to a cgroup is never off the record. One line each, as the hook's (stage=check-fix).
void log_fix(const HostFs& fs, const Config& config, const FixOutcome& fix, std::chrono::steady_clock::time_point t0) {
  EventLog log(config.log, fs);
  auto record = [&](const char* level, const char* action, const std::string& cgroup, const NodeSet& before,
                    const NodeSet& after, const std::string& msg) {
    LogRecord r;
    r.level = level;
    r.stage = "check-fix";
    r.action = action;
    r.cgroup = cgroup;
    if (!cgroup.empty() && cgroup != "-") {
      r.mems_before = before.to_display();
      r.mems_after = after.to_display();
    }
    r.duration_us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count();
    r.msg = msg;
    log.write(r);
  };
  if (!fix.error.empty()) record("error", "allow", "-", {}, {}, "check --fix wrote nothing: " + fix.error);
  for (const auto& x : fix.results) {
    if (!x.error.empty())
      record("error", "patch", x.path, x.before, x.after, "check --fix could not widen this stale cgroup: " + x.error);
    else if (x.written)
      record("info", "patch", x.path, x.before, x.after,
             "check --fix widened a stale cgroup by " + (x.after - x.before).to_display());
    else if (x.busy_tasks > 0)
      record("warn", "warn", x.path, x.before, x.before,
             "check --fix left this stale cgroup alone: " + std::to_string(x.busy_tasks) + " running task(s) would have "
             "their bound memory remapped by widening to " + x.planned.to_display() + "; restart that container");
  }
}

// The container re-patches and the systemd calls of --fix, in the log as log_fix's records are.
void log_container_fixes(const HostFs& fs, const Config& config, const CheckResult& r,
                         std::chrono::steady_clock::time_point t0) {
  if (r.container_fixes.empty() && r.systemd_updates.empty()) return;
  EventLog log(config.log, fs);
  auto record = [&](const char* level, const char* action, const std::string& container, const std::string& cgroup,
                    const NodeSet& before, const NodeSet& after, const std::string& msg) {
    LogRecord rec;
    rec.level = level;
    rec.stage = "check-fix";
    rec.action = action;
    rec.container = container;
    rec.cgroup = cgroup;
    if (cgroup != "-") {
      rec.mems_before = before.to_display();
      rec.mems_after = after.to_display();
    }
    rec.duration_us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count();
    rec.msg = msg;
    log.write(rec);
  };
  for (const auto& c : r.container_fixes) {
    if (!c.error.empty())
      record("error", "patch", c.id, c.cgroup, c.before, c.after,
             "check --fix could not re-patch this container, which lost a GPU memory node: " + c.error);
    else if (c.busy)
      record("warn", "warn", c.id, c.cgroup, c.before, c.before,
             "check --fix left this container alone: widening to " + c.after.to_display() +
                 " would remap its running tasks' bound memory; restart it");
    else if (c.written)
      record("info", "patch", c.id, c.cgroup, c.before, c.after,
             "check --fix re-patched a running container that had lost GPU memory node(s) " +
                 (c.after - c.before).to_display());
  }
  for (const auto& u : r.systemd_updates) {
    std::string value = u.nodes.to_string();
    if (u.unsupported)
      record("info", "patch", "-", "-", {}, {}, "check --fix: " + no_allowed_memory_nodes_text(u.unit));
    else if (u.error.empty())
      record("info", "patch", "-", "-", {}, {}, "check --fix set AllowedMemoryNodes=" + value + " on " + u.unit + " (runtime)");
    else
      record("warn", "warn", "-", "-", {}, {},
             "check --fix could not set AllowedMemoryNodes=" + value + " on " + u.unit + " (" + u.error +
                 "): its next daemon-reload can undo the fix; run: systemctl set-property --runtime " + u.unit +
                 " AllowedMemoryNodes=" + value);
  }
}

// What check writes for node_exporter: its findings (or only "no answer") and which build wrote them.
std::string metrics_text(const CheckResult* r, double started, bool config_unusable = false) {
  std::vector<Metric> m = check_metrics(r, started, config_unusable);
  m.push_back(build_info_metric(GNH_VERSION, GNH_REVISION));
  if (r && r->unprotected) m.push_back(unprotected_metric(r->unprotected->containers.size()));
  if (r) m.push_back(mig_unknown_metric(r->mig_unknown.size()));
  if (r)
    for (Metric& c : counter_metrics(*r)) m.push_back(std::move(c));
  return render_metrics(m);
}

// Running GPU containers without our hook, from their real specs. A scan that fails leaves the
// finding and its gauge out, said once: it never fails the rest of the check.
std::optional<UnprotectedScan> scan_unprotected(const HostFs& fs, const CpusetTree& tree) {
  try {
    return scan_running_containers(fs, tree).scan;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu-numa-hook: check: running containers' specs not read, "
                         "gpu_numa_hook_unprotected_gpu_containers left out: %s\n", e.what());
    return std::nullopt;
  }
}

double unix_now() {
  using namespace std::chrono;
  return static_cast<double>(duration_cast<seconds>(system_clock::now().time_since_epoch()).count());
}

}  // namespace

int run_check(const GlobalOptions& opts, const CheckOptions& co) {
  double started = unix_now();
  const auto t0 = std::chrono::steady_clock::now();
  bool config_unusable = true;  // until the config is read: a failure before is the config's
  try {
    HostFs fs(opts.host_root.value_or("/"));
    ConfigFile file = read_config_file(fs, opts.config_path);
    Config config = file.text ? parse_config(*file.text, file.path) : Config{};
    config_unusable = false;
    bool fix = co.fix || (co.fix_if_configured && config.check_fix);
    CpusetLocation loc = locate_cpuset_hierarchy(fs);
    CpusetTree tree(fs, loc);
    std::vector<std::string> mig_unknown;
    HostNodes nodes = read_host_nodes(fs, config, &mig_unknown);

    CheckResult r;
    r.mig_unknown = std::move(mig_unknown);
    if (file.text) r.config_file = file.path;
    r.config_problems = config.problems;
    r.found = find_problems_walking(tree, nodes);
    r.lost = find_lost(fs, config, tree, nodes);
    auto plan = plan_check_fix(r.found);
    if (fix && !plan.empty()) {
      r.fix = apply_check_fix(tree, plan, fs.resolve(config.lock_path), config.deadline_ms);
      log_fix(fs, config, *r.fix, t0);
      r.after = find_problems_walking(tree, nodes);
      tell_systemd_about_fix(fs, config, loc, tree, r);
    }
    if (fix) fix_lost(fs, config, loc, tree, nodes, r);
    log_container_fixes(fs, config, r, t0);
    r.unprotected = scan_unprotected(fs, tree);
    NriPluginCheck nri = check_nri_plugin(fs, kNriStatePath);
    r.nri_applicable = nri.applicable;
    r.nri_runtime = nri.runtime;
    r.nri_problem = nri.problem;
    r.nri_hook_problem = nri.hook_problem;
    r.nri_calls = nri.calls;
    if (nri.applicable) r.nri_connections = NriConnectionCounts{nri.connects, nri.drops, nri.last_drop_reason};
    if (co.prometheus_file) {
      // Counters are exported, not judged: one that cannot be read is left out of the metrics and
      // said once here, never a reason for the check to fail.
      try {
        r.decisions = read_decision_counts(fs);
        if (!r.decisions)
          std::fprintf(stderr, "gpu-numa-hook: check: %s is not the hook's decision counts; "
                               "gpu_numa_hook_decisions_total left out (the next count starts it again)\n",
                       fs.resolve(kDecisionCountsPath).c_str());
      } catch (const Error& e) {
        std::fprintf(stderr, "gpu-numa-hook: check: gpu_numa_hook_decisions_total left out: %s\n", e.what());
      }
    }
    count_tasks(tree, r.found, &r.tasks);
    if (r.after) count_tasks(tree, *r.after, &r.tasks);

    std::string out = co.json ? check_json(r) + "\n" : check_text(r);
    std::fputs(out.c_str(), stdout);
    // The text report already names each failure; JSON is for programs, so a person reading the
    // journal still gets them: each error printed once where a person reads it.
    if (r.fix && co.json) {
      if (!r.fix->error.empty()) std::fprintf(stderr, "gpu-numa-hook: check --fix: %s\n", r.fix->error.c_str());
      for (const auto& x : r.fix->results)
        if (!x.error.empty()) std::fprintf(stderr, "gpu-numa-hook: check --fix: %s\n", x.error.c_str());
    }
    if (co.json) {  // the text report names these too
      for (const auto& c : r.container_fixes)
        if (!c.error.empty()) std::fprintf(stderr, "gpu-numa-hook: check --fix: container %s: %s\n", c.id.c_str(), c.error.c_str());
      bool systemd_failed = false;
      std::string told = describe_unit_updates(r.systemd_updates, &systemd_failed);
      if (systemd_failed) std::fprintf(stderr, "gpu-numa-hook: check --fix: %s\n", told.c_str() + (told[0] == ' ' ? 1 : 0));
    }
    if (co.prometheus_file) write_file_atomically(*co.prometheus_file, metrics_text(&r, started));
    return r.exit_code();
  } catch (const std::exception& e) {
    // The metrics say "no answer" (success 0), so an alert can tell it from "no problems".
    if (co.prometheus_file) {
      try {
        write_file_atomically(*co.prometheus_file, metrics_text(nullptr, started, config_unusable));
      } catch (const std::exception& g) {
        report_tool_error("gpu-numa-hook: check: ", g);
      }
    }
    return report_tool_error("gpu-numa-hook: check: ", e);
  }
}

}  // namespace gnh
