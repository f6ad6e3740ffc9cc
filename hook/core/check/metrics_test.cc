#include "check/metrics.h"

#include <doctest/doctest.h>

using namespace gnh;

namespace {
double value(const std::vector<Metric>& m, const std::string& name) {
  for (const auto& x : m)
    if (x.name == name) return x.value;
  FAIL("no metric " << name);
  return -1;
}
}  // namespace

TEST_CASE("metrics count what is left after a fix, and what the fix did") {
  CheckResult r;
  r.found.cgroups = 7;
  r.found.stale = {{"/docker", NodeSet::of({0}), NodeSet::of({0, 1}), NodeSet::of({1})}};
  r.found.missing_gpu_node = {{"/docker", NodeSet::of({0}), NodeSet::of({1}), true}};
  auto before = check_metrics(&r, 1763700000);
  CHECK(value(before, "gpu_numa_hook_stale_cgroups") == 1);
  CHECK(value(before, "gpu_numa_hook_cgroups_missing_gpu_node") == 1);
  CHECK(value(before, "gpu_numa_hook_check_fixed_cgroups") == 0);
  CHECK(value(before, "gpu_numa_hook_check_success") == 1);
  CHECK(value(before, "gpu_numa_hook_check_last_run_timestamp_seconds") == 1763700000);
  CHECK(r.exit_code() == 1);

  r.fix = FixOutcome{{{"/docker", NodeSet::of({0}), NodeSet::of({0, 1}), true, false, "", 0, {}}}, ""};
  r.after = CheckFindings{};
  r.after->cgroups = 7;
  auto after = check_metrics(&r, 1763700000);
  CHECK(value(after, "gpu_numa_hook_stale_cgroups") == 0);
  CHECK(value(after, "gpu_numa_hook_cgroups_missing_gpu_node") == 0);
  CHECK(value(after, "gpu_numa_hook_check_fixed_cgroups") == 1);
  CHECK(value(after, "gpu_numa_hook_cgroups_checked") == 7);
  CHECK(r.exit_code() == 0);

  r.fix->results[0].error = "cannot write";
  CHECK(r.exit_code() == 1);
}

TEST_CASE("a failed check exports only success=0 and the timestamp") {
  auto m = check_metrics(nullptr, 5);
  REQUIRE(m.size() == 2);
  CHECK(value(m, "gpu_numa_hook_check_success") == 0);
  CHECK(value(m, "gpu_numa_hook_check_last_run_timestamp_seconds") == 5);
}

TEST_CASE("gpu_numa_hook_config_valid: 1 without problems, 0 with one, 0 when the config is unusable") {
  CheckResult r;
  CHECK(value(check_metrics(&r, 1), "gpu_numa_hook_config_valid") == 1);
  CHECK(r.exit_code() == 0);
  r.config_file = "/etc/gpu-numa-hook/config.toml";
  r.config_problems.push_back({r.config_file, 3, "policy.bogus", "unknown key, ignored"});
  CHECK(value(check_metrics(&r, 1), "gpu_numa_hook_config_valid") == 0);
  CHECK(r.exit_code() == 1);  // the hook is not doing what the file says: a problem
  auto failed = check_metrics(nullptr, 5, true);
  REQUIRE(failed.size() == 3);
  CHECK(value(failed, "gpu_numa_hook_config_valid") == 0);
  CHECK(value(failed, "gpu_numa_hook_check_success") == 0);
}

TEST_CASE("build info: one gauge at 1 naming the version and the revision") {
  CHECK(render_metrics({build_info_metric("0.9.0", "v0.9.0-3-gabc")}) ==
        "# HELP gpu_numa_hook_build_info The gpu-numa-hook build that wrote these metrics\n"
        "# TYPE gpu_numa_hook_build_info gauge\n"
        "gpu_numa_hook_build_info{version=\"0.9.0\",revision=\"v0.9.0-3-gabc\"} 1\n");
}

TEST_CASE("gpu_numa_hook_nri_hook_present: 0 and a problem when the hook the NRI plugin injects is missing") {
  CheckResult r;
  r.nri_applicable = true;
  r.nri_runtime = "containerd v2.1.9";
  CHECK(value(check_metrics(&r, 1), "gpu_numa_hook_nri_hook_present") == 1);
  CHECK(value(check_metrics(&r, 1), "gpu_numa_hook_nri_plugin_connected") == 1);
  CHECK(r.exit_code() == 0);
  r.nri_hook_problem = "NRI plugin injects no hook: /x is not usable on this node (missing)";
  CHECK(value(check_metrics(&r, 1), "gpu_numa_hook_nri_hook_present") == 0);
  CHECK(value(check_metrics(&r, 1), "gpu_numa_hook_nri_plugin_connected") == 1);  // connected, yet unprotected
  CHECK(r.exit_code() == 1);
  CheckResult plain;  // not an NRI node: no such metric
  for (const auto& m : check_metrics(&plain, 1)) CHECK(m.name != "gpu_numa_hook_nri_hook_present");
}

TEST_CASE("counters: the hook's decisions by action and the NRI plugin's counts, each only where known") {
  CheckResult r;
  CHECK(counter_metrics(r).empty());  // decisions unreadable, no NRI plugin
  r.decisions = DecisionCounts{};
  r.decisions->add("patch");
  r.decisions->add("patch");
  r.decisions->add("refuse");
  r.nri_calls = NriCallCounts{7, 1};
  CHECK(render_metrics(counter_metrics(r)) ==
        "# HELP gpu_numa_hook_decisions_total Container starts the hook did not simply allow, by what it did (error: "
        "a hook failure that let the container start), since boot\n"
        "# TYPE gpu_numa_hook_decisions_total counter\n"
        "gpu_numa_hook_decisions_total{action=\"patch\"} 2\n"
        "gpu_numa_hook_decisions_total{action=\"refuse\"} 1\n"
        "gpu_numa_hook_decisions_total{action=\"warn\"} 0\n"
        "gpu_numa_hook_decisions_total{action=\"error\"} 0\n"
        "# HELP gpu_numa_hook_nri_injections_total Containers the NRI plugin added the hook to, since the plugin "
        "started\n"
        "# TYPE gpu_numa_hook_nri_injections_total counter\n"
        "gpu_numa_hook_nri_injections_total 7\n"
        "# HELP gpu_numa_hook_nri_calls_failed_total Container calls the NRI plugin answered with no adjustment "
        "because of its own failure, since it started\n"
        "# TYPE gpu_numa_hook_nri_calls_failed_total counter\n"
        "gpu_numa_hook_nri_calls_failed_total 1\n"
        "# HELP gpu_numa_hook_nri_calls_stuck Container calls abandoned at their deadline and still stuck in a host "
        "read (a hung driver or cgroup file?); at 4 every later call is refused\n"
        "# TYPE gpu_numa_hook_nri_calls_stuck gauge\n"
        "gpu_numa_hook_nri_calls_stuck 0\n");
  r.decisions.reset();
  CHECK(counter_metrics(r).size() == 3);
}
