#include "check/metrics.h"

#include "check/nri_metrics.h"

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
  if (r->nri_applicable) m.push_back(nri_connected_metric(!r->nri_problem));
  if (r->nri_applicable) m.push_back(nri_hook_present_metric(!r->nri_hook_problem));
  return m;
}

std::vector<Metric> counter_metrics(const CheckResult& r) {
  std::vector<Metric> m;
  if (r.decisions)
    for (Metric& c : decision_metrics(*r.decisions)) m.push_back(std::move(c));
  if (r.nri_calls)
    for (Metric& c : nri_call_metrics(*r.nri_calls)) m.push_back(std::move(c));
  if (r.nri_connections)
    for (Metric& c : nri_connection_metrics(*r.nri_connections)) m.push_back(std::move(c));
  return m;
}

Metric unprotected_metric(size_t count) {
  return {"gpu_numa_hook_unprotected_gpu_containers",
          "Running containers that may get a GPU and whose spec has no gpu-numa-hook entry at any stage", "gauge",
          static_cast<double>(count)};
}

Metric mig_unknown_metric(size_t count) {
  return {"gpu_numa_hook_mig_gpus_unknown_instances",
          "GPUs in MIG state whose GPU instances' memory nodes are unknown: no current NVML cache, or one "
          "written for another MIG layout (gpu-numa-hook topology --refresh)",
          "gauge", static_cast<double>(count)};
}

Metric build_info_metric(const std::string& version, const std::string& revision) {
  return {"gpu_numa_hook_build_info", "The gpu-numa-hook build that wrote these metrics", "gauge", 1.0,
          {{"version", version}, {"revision", revision}}};
}

}  // namespace gnh
