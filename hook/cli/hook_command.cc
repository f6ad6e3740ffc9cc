// Hook mode, as one straight line: config, stdin, the next hook (chained mode), the sandbox, the
// pipeline, the patch, and one verdict (decide/verdict.h) that becomes the exit code, the log
// line and at most one stderr line.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "cli/commands.h"
#include "base/error.h"
#include "decide/verdict.h"
#include "decide/decision_counts.h"
#include "gpu/gpu_request.h"
#include "host/config/config_loader.h"
#include "host/decide/decision_counter.h"
#include "host/oci/container_process.h"
#include "host/log/event_log.h"
#include "host/oci/next_hook.h"
#include "host/cgroup/patcher.h"
#include "host/decide/pipeline.h"
#include "host/sandbox/sandbox.h"
#include "host/oci/spec_reader.h"
#include "host/oci/stdin_reader.h"
#include "host/systemd/systemd_durable.h"
#include "host/sandbox/watchdog.h"
#include "member_check.h"
#include "report/container_names.h"
#include "state.h"

namespace gnh {

namespace {

long long micros_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count();
}

// The container's id for messages about a chained hook, which runs before the state is parsed
// properly; "-" when it does not parse (that is reported further down).
std::string container_id_or_dash(const std::string& state_text) {
  try {
    return oci::parse_state(state_text).id;
  } catch (const std::exception&) {
    return "-";
  }
}

}  // namespace

int run_hook(const GlobalOptions& opts, const std::string& stage, const std::vector<std::string>& next_hook_args) {
  const auto t0 = std::chrono::steady_clock::now();
  HostFs fs(opts.host_root.value_or("/"));
  Config config;
  std::string config_error;
  try {
    config = load_config(fs, opts.config_path);
  } catch (const Error& e) {
    config_error = e.what();
  }
  EventLog log(config.log, fs);
  LogRecord rec;
  rec.stage = stage;
  const OnErrorPolicy on_error = config.policy.on_error;
  std::string sandbox_note;
  WatchdogGuard watchdog;

  // Every way out: the verdict becomes the log line, the stderr line and the exit code.
  auto finish = [&](const Verdict& v) {
    watchdog.disarm();
    // Counted for check's gpu_numa_hook_decisions_total, after the watchdog (a slow count must not
    // turn a done patch into a deadline error). A plain allow, the fast path, is not counted: it
    // gains no file I/O. A count that fails never changes the verdict; the log line says so.
    std::string not_counted;
    if (auto counted = counted_decision(v)) {
      try {
        count_decision(fs, *counted);
      } catch (const Error& e) {
        not_counted = e.what();
      }
    }
    rec.level = v.level;
    rec.action = v.action;
    rec.msg = v.message;
    // Problems the config reader ignored: on the one log line (never stderr, which a runtime may
    // show as the start's failure), raised to warn so a log kept at level warn still shows them.
    if (!config.problems.empty()) {
      if (rec.level == "info" || rec.level == "debug") rec.level = "warn";
      rec.msg += " (" + describe_all(config.problems) + ")";
    }
    if (!v.stderr_line.empty())
      std::fprintf(stderr, "%s%s\n", v.stderr_line.c_str(), rec.names.stderr_suffix().c_str());
    if (!sandbox_note.empty()) rec.msg += " (sandbox incomplete: " + sandbox_note + ")";
    if (!not_counted.empty()) rec.msg += " (not counted in gpu_numa_hook_decisions_total: " + not_counted + ")";
    rec.duration_us = micros_since(t0);
    log.write(rec);
    return v.exit_code;
  };
  // The watchdog is the last line: it fires a little after the deadline the code itself checks
  // (stdin, the lock, before each write), so a cooperative give-up wins whenever one can.
  auto arm_watchdog_for = [&](const LogRecord& r) {
    Verdict v = verdict_for_error(r.container,
                                  "the hook ran past its deadline of " + std::to_string(config.deadline_ms) +
                                      " ms (a blocked driver or cgroup file?)",
                                  on_error);
    LogRecord t = r;
    t.level = v.level;
    t.action = v.action;
    t.msg = v.message;
    t.duration_us = config.deadline_ms * 1000LL;
    std::string line = config.log.format == LogFormat::json ? format_json(t, "-", ::getpid()) : format_text(t, "-", ::getpid());
    // A log file that failed: the watchdog's record goes to stderr with everything else.
    const std::string refusal = v.stderr_line.empty() ? v.stderr_line : v.stderr_line + r.names.stderr_suffix();
    std::string err = log.fell_back() ? line + (refusal.empty() ? "" : "\n" + refusal) : refusal;
    watchdog.arm(config.deadline_ms + std::min(config.deadline_ms / 4, 1000), log.file_path(), line, err, v.exit_code);
  };

  if (!config_error.empty()) return finish(verdict_for_error(rec.container, config_error, on_error));
  std::string input;
  try {
    input = read_all_stdin(kMaxStateBytes, Deadline(std::chrono::milliseconds(config.deadline_ms)));
  } catch (const Error& e) {
    return finish(verdict_for_error(rec.container, e.what(), on_error));
  }

  if (!config.next_hook.empty()) {
    // Only here is the state parsed before the sandbox: the next hook needs everything, so the
    // sandbox must wait for it anyway.
    rec.container = container_id_or_dash(input);
    NextHookResult r = run_next_hook(config.next_hook, next_hook_args, input, config.chain_timeout_ms);
    if (!r.error.empty() || r.timed_out || r.exit_code != 0)
      return finish(verdict_for_next_hook(
          rec.container, {config.next_hook, r.error, r.timed_out, r.exit_code, config.chain_timeout_ms}));
  }

  // Start-up is over: the config is read, the log file is open (EventLog opens it at construction)
  // and the chained hook, which needs everything, has run. From here the run is bounded by the
  // deadline; the sandbox comes once the verdict needs the host (below).
  Deadline deadline(std::chrono::milliseconds(config.deadline_ms));

  try {
    oci::State state = oci::parse_state(input);
    rec.container = state.id;
    // The pod, from annotations already parsed (the state's now, config.json's below): no extra read.
    rec.names = container_names(state.annotations, {});
    // Armed once, here, so its lines name the container: parsing the state before it reads nothing
    // and is bounded by the state's size limit (arming costs five system calls and a log line).
    arm_watchdog_for(rec);
    if (state.bundle.empty() || state.bundle.front() != '/')
      fail("bundle path '" + state.bundle.substr(0, 200) + "' is not absolute");
    ContainerProcess process(state.pid, fs.is_real_root());
    oci::Spec spec = read_bundle_spec(fs, state.bundle);
    if (!spec.annotations.empty()) rec.names = container_names(state.annotations, spec.annotations);
    // Most starts on a hooks.d or shim node have no GPU: their verdict comes from the state and
    // config.json alone (evaluate's fast path reads nothing of the host), so they do not pay for
    // the sandbox (docs/internals/sandbox.md). Everything that reads or writes the host is inside it.
    // Who reads NVIDIA_VISIBLE_DEVICES is known from config.json alone; NVIDIA's settings, read
    // inside, can only narrow it.
    if (may_request_gpus(spec, device_forms(spec, visible_devices_reader(spec, config.next_hook), std::nullopt)))
      sandbox_note = enter_hook_sandbox();
    Evaluation ev = evaluate(fs, config, spec, state.pid, EvaluationDetail::decision);
    process.confirm_alive();
    rec.gpus = ev.gpu_list();
    rec.required = ev.decision.required.to_display();
    if (ev.location) {
      rec.cgroup = ev.location->path;
      rec.mems_before = rec.mems_after = ev.mems.effective.to_display();
    }
    if (ev.decision.action != Action::patch) return finish(verdict_for_decision(state.id, ev.decision));

    PatchOutcome out = apply_patch(CpusetTree(fs, *ev.location), ev.location->path, ev.decision.to_add,
                                   fs.resolve(config.lock_path), deadline, ev.decision.arrives_later);
    if (out.ok) rec.mems_after = out.effective_after.to_display();
    Verdict v = verdict_for_patch(state.id, ev.decision, out, rec.gpus, ev.location->path, on_error);
    // Where systemd owns the cgroup it would re-apply the unit's old value at its next
    // daemon-reload: tell it ours. A failure here never undoes the write; it is logged, with the fix.
    if (out.ok && config.systemd_allowed_memory_nodes && systemd_owns_cgroups(fs, *ev.location)) {
      bool failed = false;
      v.message += describe_unit_updates(
          tell_systemd(fs, CpusetTree(fs, *ev.location), out.steps, fs.resolve(config.lock_path), deadline), &failed);
      if (failed && v.level == "info") v.level = "warn";
    }
    return finish(v);
  } catch (const oci::MisreadSpec& e) {
    return finish(verdict_for_misread_spec(rec.container, e.what()));
  } catch (const Error& e) {
    return finish(verdict_for_error(rec.container, e.what(), on_error));
  } catch (const std::exception& e) {
    return finish(verdict_for_error(rec.container, std::string("unexpected: ") + e.what(), on_error));
  }
}

}  // namespace gnh
