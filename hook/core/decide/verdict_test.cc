#include "decide/verdict.h"

#include <doctest/doctest.h>

using namespace gnh;

namespace {
Decision decision(Action a, std::string message) {
  Decision d;
  d.action = a;
  d.message = std::move(message);
  d.to_add = NodeSet::of({252});
  return d;
}
}  // namespace

TEST_CASE("verdict: allow and warn start the container silently - refuse prints one line and exits 1") {
  Verdict allow = verdict_for_decision("c1", decision(Action::allow, "no GPU requested (fast path)"));
  CHECK(allow.exit_code == 0);
  CHECK(allow.level == "info");
  CHECK(allow.action == "allow");
  CHECK(allow.stderr_line.empty());
  Verdict warn = verdict_for_decision("c1", decision(Action::warn, "lacks 252"));
  CHECK(warn.exit_code == 0);
  CHECK(warn.level == "warn");
  Verdict refuse = verdict_for_decision("c1", decision(Action::refuse, "node 252 not online"));
  CHECK(refuse.exit_code == 1);
  CHECK(refuse.level == "error");
  CHECK(refuse.stderr_line == "gpu-numa-hook: container c1: refusing start: node 252 not online");
}

TEST_CASE("verdict: a patch that wrote, one already healed, one that failed on a cgroup, one without the lock") {
  Decision d = decision(Action::patch, "adding NUMA node 252 for the container's GPUs to cgroup /docker/c1 (had 0,8)");
  PatchOutcome ok;
  ok.ok = ok.locked = true;
  ok.steps = {{"/docker", NodeSet::of({0, 8}), NodeSet::of({0, 8, 252})}};
  Verdict wrote = verdict_for_patch("c1", d, ok, "/dev/nvidia3(0035:04:00.0)", "/docker/c1", OnErrorPolicy::allow);
  CHECK(wrote.exit_code == 0);
  CHECK(wrote.action == "patch");
  CHECK(wrote.message == d.message + "; wrote /docker 0,8->0,8,252");

  ok.steps.clear();
  CHECK(verdict_for_patch("c1", d, ok, "-", "/docker/c1", OnErrorPolicy::allow).message ==
        d.message + "; wrote nothing (already healed by another start)");

  PatchOutcome failed;
  failed.locked = true;
  failed.error = "cannot write '0,8,252' to /sys/fs/cgroup/cpuset/docker/cpuset.mems: EACCES (Permission denied)";
  Verdict refused = verdict_for_patch("c1", d, failed, "/dev/nvidia3(0035:04:00.0)", "/docker/c1", OnErrorPolicy::allow);
  CHECK(refused.exit_code == 1);
  CHECK(refused.action == "refuse");
  CHECK(refused.stderr_line ==
        "gpu-numa-hook: container c1: refusing start: GPU /dev/nvidia3(0035:04:00.0) needs NUMA node 252 but patching "
        "cgroup /docker/c1 failed: " + failed.error +
        "; no node was removed; fix the cgroup by hand or run 'gpu-numa-hook check --fix'");

  PatchOutcome no_lock;
  no_lock.error = "lock /run/gpu-numa-hook.lock not had within 5000 ms";
  Verdict allowed = verdict_for_patch("c1", d, no_lock, "-", "/docker/c1", OnErrorPolicy::allow);
  CHECK(allowed.exit_code == 0);
  CHECK(allowed.action == "allow");
  CHECK(allowed.message == "hook error: " + no_lock.error + " (policy on-error=allow)");
  CHECK(verdict_for_patch("c1", d, no_lock, "-", "/docker/c1", OnErrorPolicy::refuse).exit_code == 2);
}

TEST_CASE("verdict: a hook error follows on-error - only refuse prints") {
  Verdict allow = verdict_for_error("c1", "bad state", OnErrorPolicy::allow);
  CHECK(allow.exit_code == 0);
  CHECK(allow.level == "error");
  CHECK(allow.stderr_line.empty());
  Verdict refuse = verdict_for_error("c1", "bad state", OnErrorPolicy::refuse);
  CHECK(refuse.exit_code == 2);
  CHECK(refuse.action == "refuse");
  CHECK(refuse.stderr_line == "gpu-numa-hook: container c1: error: bad state");
}

// A config.json the runtimes read otherwise could hide a GPU from us: refused whatever on-error says.
TEST_CASE("verdict: a config.json the runtimes would read otherwise is refused, not left to on-error") {
  Verdict v = verdict_for_misread_spec("c1", "config.json has \"linux\" twice at the top level");
  CHECK(v.exit_code == 1);
  CHECK(v.level == "error");
  CHECK(v.action == "refuse");
  CHECK(v.message == "config.json has \"linux\" twice at the top level");
  CHECK(v.stderr_line == "gpu-numa-hook: container c1: refusing start: config.json has \"linux\" twice at the top level");
}

TEST_CASE("verdict: the next hook's failure stops the start with its exit status - only a hang or no-run is worded") {
  Verdict failed = verdict_for_next_hook("c1", {"/usr/bin/nvidia-container-runtime-hook", "", false, 3, 30000});
  CHECK(failed.exit_code == 3);
  CHECK(failed.stderr_line.empty());
  CHECK(failed.message == "next hook /usr/bin/nvidia-container-runtime-hook failed with exit status 3; the start stops "
                          "there, our check did not run");
  Verdict hung = verdict_for_next_hook("c1", {"/x", "", true, 137, 100});
  CHECK(hung.exit_code == 137);
  CHECK(hung.stderr_line == "gpu-numa-hook: container c1: refusing start: next hook /x ran past 100 ms and was killed");
  Verdict missing = verdict_for_next_hook("c1", {"/x", "cannot run /x: ENOENT", false, 0, 100});
  CHECK(missing.exit_code == 1);
  CHECK(missing.stderr_line == "gpu-numa-hook: container c1: refusing start: cannot run /x: ENOENT");
}
