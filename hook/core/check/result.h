// One `check` run: what was found, what --fix did, what is left. Pure data plus the exit rule.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "check/findings.h"
#include "check/fix_outcome.h"
#include "config/config.h"

namespace gnh {

struct CheckResult {
  CheckFindings found;                  // before any fix
  std::optional<FixOutcome> fix;        // set when a fix ran (there was something to fix)
  std::optional<CheckFindings> after;   // the hierarchy walked again after the fix
  std::map<std::string, long> tasks;    // task counts of the cgroups reported; -1 unreadable
  // The config the hook reads: its path ("" = none, built-in defaults) and what the hook ignores in
  // it. Each problem makes the exit 1: the hook is not doing what the file says.
  std::string config_file;
  std::vector<ConfigProblem> config_problems;

  const CheckFindings& left() const { return after ? *after : found; }
  long tasks_of(const std::string& path) const;
  // Problems left: the hierarchy's and the config's.
  size_t problems() const { return left().problems() + config_problems.size(); }
  // 0: nothing wrong (or everything fixed); 1: problems left. (2, the check failing, is main's.)
  int exit_code() const;
};

}  // namespace gnh
