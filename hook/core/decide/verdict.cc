#include "decide/verdict.h"

#include "base/text.h"

namespace gnh {

Verdict verdict_for_decision(const std::string& container, const Decision& d) {
  Verdict v;
  v.action = to_string(d.action);
  v.message = d.message;
  if (d.action == Action::warn) v.level = "warn";
  if (d.action == Action::refuse) {
    v.level = "error";
    v.exit_code = 1;
    v.stderr_line = refusal_line(container, d.message);
  }
  return v;
}

Verdict verdict_for_misread_spec(const std::string& container, const std::string& what) {
  Verdict v;
  v.exit_code = 1;
  v.level = "error";
  v.action = "refuse";
  v.message = what;
  v.stderr_line = refusal_line(container, what);
  return v;
}

Verdict verdict_for_patch(const std::string& container, const Decision& d, const PatchOutcome& p,
                          const std::string& gpus, const std::string& cgroup, OnErrorPolicy on_error) {
  if (!p.ok && !p.locked) return verdict_for_error(container, p.error, on_error);
  Verdict v;
  if (!p.ok) {
    v.exit_code = 1;
    v.level = "error";
    v.action = "refuse";
    v.message = "GPU " + gpus + " needs NUMA node " + d.to_add.to_string() + " but patching cgroup " + cgroup +
                " failed: " + p.error + "; no node was removed; fix the cgroup by hand or run 'gpu-numa-hook check --fix'";
    v.stderr_line = refusal_line(container, v.message);
    return v;
  }
  std::string written;
  for (const auto& s : p.steps)
    written += (written.empty() ? "" : ", ") + s.path + " " + s.before.to_display() + "->" + s.after.to_string();
  v.action = "patch";
  v.message = d.message + "; wrote " + (written.empty() ? std::string("nothing (already healed by another start)") : written);
  return v;
}

Verdict verdict_for_error(const std::string& container, const std::string& what, OnErrorPolicy on_error) {
  Verdict v;
  bool refuse = on_error == OnErrorPolicy::refuse;
  v.exit_code = refuse ? 2 : 0;
  v.level = "error";
  v.action = refuse ? "refuse" : "allow";
  v.message = "hook error: " + what + " (policy on-error=" + to_string(on_error) + ")";
  if (refuse) v.stderr_line = error_line(container, what);
  return v;
}

Verdict verdict_for_next_hook(const std::string& container, const NextHookFailure& f) {
  std::string what = !f.error.empty() ? f.error
                     : f.timed_out    ? "next hook " + f.path + " ran past " + std::to_string(f.timeout_ms) +
                                         " ms and was killed"
                                      : "next hook " + f.path + " failed with exit status " + std::to_string(f.exit_code);
  Verdict v;
  v.exit_code = f.exit_code != 0 ? f.exit_code : 1;
  v.level = "error";
  v.action = "refuse";
  v.message = what + "; the start stops there, our check did not run";
  // A next hook that ran and failed has said why itself; one that could not run or hung has not.
  if (!f.error.empty() || f.timed_out) v.stderr_line = refusal_line(container, what);
  return v;
}

std::string refusal_line(const std::string& id, const std::string& message) {
  return "gpu-numa-hook: container " + one_line(id) + ": refusing start: " + one_line(message);
}

std::string error_line(const std::string& id, const std::string& message) {
  return "gpu-numa-hook: container " + one_line(id) + ": error: " + one_line(message);
}

}  // namespace gnh
