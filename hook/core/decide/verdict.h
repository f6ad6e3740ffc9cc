// How one hook run ends: from the decision, the patch's outcome, a failure of the next hook or of
// the hook itself, and the on-error policy, to the exit code, the log's level, action and message,
// and the one line on stderr. Pure, so every ending is unit-tested (decide/verdict_test.cc).
#pragma once

#include <string>

#include "cgroup/patch_plan.h"
#include "decide/decision.h"
#include "decide/policy.h"

namespace gnh {

struct Verdict {
  int exit_code = 0;
  std::string level = "info";  // info, warn, error
  std::string action = "allow";
  std::string message;         // the log line's msg
  std::string stderr_line;     // "" when nothing is printed
};

// allow, warn or refuse (a patch's verdict needs its outcome: verdict_for_patch).
Verdict verdict_for_decision(const std::string& container, const Decision& d);

// A patch carried out. Cgroup writes that failed refuse the start (the container would fail on
// first use); a lock never had is the hook's failure, not the cgroup's, and follows on-error.
Verdict verdict_for_patch(const std::string& container, const Decision& d, const PatchOutcome& p,
                          const std::string& gpus, const std::string& cgroup, OnErrorPolicy on_error);

// config.json has members the runtimes would read otherwise than we do (oci::MisreadSpec): the
// container could get a GPU we do not see. The container's own problem, refused (exit 1) whatever
// on-error says, as a refused decision is.
Verdict verdict_for_misread_spec(const std::string& container, const std::string& what);

// The hook could not do its job (bad input, an unreadable file, the deadline): exit 2 and refuse
// under on-error=refuse, else log it and let the container start (exit 0).
Verdict verdict_for_error(const std::string& container, const std::string& what, OnErrorPolicy on_error);

// Chained mode: the next hook could not run (error), hung (timed_out) or failed (exit_code).
struct NextHookFailure {
  std::string path;
  std::string error;
  bool timed_out = false;
  int exit_code = 0;
  int timeout_ms = 0;
};
Verdict verdict_for_next_hook(const std::string& container, const NextHookFailure& f);

// "gpu-numa-hook: container <id>: refusing start: <message>", one line whatever the id holds.
std::string refusal_line(const std::string& container_id, const std::string& message);
// "gpu-numa-hook: container <id>: error: <message>"
std::string error_line(const std::string& container_id, const std::string& message);

}  // namespace gnh
