// One `check` run: what was found, what --fix did, what is left. Pure data plus the exit rule.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "check/container_drift.h"
#include "check/findings.h"
#include "check/fix_outcome.h"
#include "check/nri_metrics.h"
#include "check/nri_plugin_state.h"
#include "check/unprotected_containers.h"
#include "decide/decision_counts.h"
#include "systemd/systemd_unit.h"
#include "config/config.h"

namespace gnh {

struct CheckResult {
  CheckFindings found;                  // before any fix
  std::optional<FixOutcome> fix;        // set when a fix ran (there was something to fix)
  std::optional<CheckFindings> after;   // the hierarchy walked again after the fix
  std::map<std::string, long> tasks;    // task counts of the cgroups reported; -1 unreadable
  // Running GPU containers that lost a GPU memory node (check/container_drift.h), before any fix,
  // what --fix did for them, and what is left after it.
  std::vector<LostGpuNode> lost;
  std::vector<ContainerFix> container_fixes;
  std::optional<std::vector<LostGpuNode>> lost_after;
  // Where systemd owns the cgroups: the AllowedMemoryNodes= calls --fix made for what it wrote.
  std::vector<UnitUpdate> systemd_updates;
  // GPUs in MIG state whose instances' nodes are unknown (their device paths).
  std::vector<std::string> mig_unknown;

  const std::vector<LostGpuNode>& lost_left() const { return lost_after ? *lost_after : lost; }
  // The config the hook reads: its path ("" = none, built-in defaults) and what the hook ignores in
  // it. Each problem makes the exit 1: the hook is not doing what the file says.
  std::string config_file;
  std::vector<ConfigProblem> config_problems;
  // The NRI plugin, on a node that runs it (its state file exists): NRI fails open, so a plugin
  // that is not connected is a problem check reports ("NRI plugin not connected: ...").
  bool nri_applicable = false;
  std::string nri_runtime;                 // what it is connected to
  std::optional<std::string> nri_problem;
  std::optional<std::string> nri_hook_problem;  // connected or not, the hook it injects is missing
  // Counters, exported as they are: the hook's decisions since boot (nullopt: its file unreadable
  // or damaged; no file is all zeros), the NRI plugin's container counts since it started (nullopt:
  // no plugin, or one that does not count).
  std::optional<DecisionCounts> decisions;
  std::optional<NriCallCounts> nri_calls;
  std::optional<NriConnectionCounts> nri_connections;  // registrations and drops, where the plugin runs

  // Running GPU containers whose spec has no gpu-numa-hook entry (check/unprotected_containers.h);
  // nullopt when the runtimes' records could not be scanned. Reported and exported, not counted in
  // problems(): --fix cannot give a running container a hook; `status` judges them.
  std::optional<UnprotectedScan> unprotected;

  const CheckFindings& left() const { return after ? *after : found; }
  long tasks_of(const std::string& path) const;
  // Problems left: the hierarchy's and the config's.
  size_t problems() const { return left().problems() + config_problems.size() + lost_left().size() + (nri_problem ? 1 : 0) +
                                 (nri_hook_problem ? 1 : 0); }
  // 0: nothing wrong (or everything fixed); 1: problems left. (2, the check failing, is main's.)
  int exit_code() const;
};

}  // namespace gnh
