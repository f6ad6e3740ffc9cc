#include "check/metrics.h"

namespace gnh {

std::vector<Metric> check_metrics(const CheckResult* r, double now_seconds, bool config_unusable) {
  std::vector<Metric> m;
  m.push_back({"gpu_numa_hook_check_success", "1 when the last check ran to the end, 0 when it failed", "gauge",
               r ? 1.0 : 0.0});
  m.push_back({"gpu_numa_hook_check_last_run_timestamp_seconds", "Unix time of the last check", "gauge", now_seconds});
  const char* config_help = "1 when the hook's config has no problem it ignores, else 0 (see config check)";
  if (!r) {
    if (config_unusable) m.push_back({"gpu_numa_hook_config_valid", config_help, "gauge", 0.0});
    return m;
  }
  const CheckFindings& left = r->left();
  auto n = [](size_t v) { return static_cast<double>(v); };
  m.push_back({"gpu_numa_hook_cgroups_checked", "Cgroups walked in the cpuset hierarchy, root included", "gauge",
               n(left.cgroups)});
  m.push_back({"gpu_numa_hook_stale_cgroups", "Cgroups lacking memory nodes their parent has (after any fix)", "gauge",
               n(left.stale.size())});
  m.push_back({"gpu_numa_hook_cgroups_missing_gpu_node", "Cgroups lacking an online GPU memory node (after any fix)",
               "gauge", n(left.missing_gpu_node.size())});
  m.push_back({"gpu_numa_hook_gpu_memory_nodes_offline", "GPU memory nodes whose numa_status is not online", "gauge",
               n(left.gpu_offline.size())});
  m.push_back({"gpu_numa_hook_root_missing_nodes", "Online memory nodes missing from the root cpuset", "gauge",
               n(left.root_missing.size())});
  m.push_back({"gpu_numa_hook_check_fixed_cgroups", "Cgroups the last check widened (0 without --fix)", "gauge",
               n(r->fix ? r->fix->fixed() : 0)});
  m.push_back({"gpu_numa_hook_check_fix_failures", "Cgroups the last check failed to widen", "gauge",
               n(r->fix ? r->fix->failed() : 0)});
  m.push_back({"gpu_numa_hook_config_valid", config_help, "gauge", r->config_problems.empty() ? 1.0 : 0.0});
  // Last, so the lines above keep their places for readers that count them.
  m.push_back({"gpu_numa_hook_containers_lost_gpu_node",
               "Running GPU containers whose cgroup lacks an online memory node of their GPUs (after any fix)", "gauge",
               n(r->lost_left().size())});
  if (r->nri_applicable)
    m.push_back({"gpu_numa_hook_nri_plugin_connected",
                 "1 when the NRI plugin is connected to the runtime; 0: GPU containers start without the hook", "gauge",
                 r->nri_problem ? 0.0 : 1.0});
  if (r->nri_applicable)
    m.push_back({"gpu_numa_hook_nri_hook_present",
                 "1 when the hook the NRI plugin injects is on the node; 0: GPU containers start without it", "gauge",
                 r->nri_hook_problem ? 0.0 : 1.0});
  return m;
}

std::vector<Metric> counter_metrics(const CheckResult& r) {
  std::vector<Metric> m;
  if (r.decisions)
    for (const char* action : kCountedDecisions)
      m.push_back({"gpu_numa_hook_decisions_total",
                   "Container starts the hook did not simply allow, by what it did (error: a hook failure that let the "
                   "container start), since boot",
                   "counter", static_cast<double>(r.decisions->of(action)), {{"action", action}}});
  if (r.nri_calls) {
    m.push_back({"gpu_numa_hook_nri_injections_total",
                 "Containers the NRI plugin added the hook to, since the plugin started", "counter",
                 static_cast<double>(r.nri_calls->injections)});
    m.push_back({"gpu_numa_hook_nri_calls_failed_total",
                 "Container calls the NRI plugin answered with no adjustment because of its own failure, since it "
                 "started",
                 "counter", static_cast<double>(r.nri_calls->calls_failed)});
  }
  return m;
}

Metric build_info_metric(const std::string& version, const std::string& revision) {
  return {"gpu_numa_hook_build_info", "The gpu-numa-hook build that wrote these metrics", "gauge", 1.0,
          {{"version", version}, {"revision", revision}}};
}

}  // namespace gnh
