// Hook mode: read the state, optionally run the next hook, decide, act, log one line.
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "commands.h"
#include "config.h"
#include "event_log.h"
#include "evaluation.h"
#include "failure.h"
#include "next_hook.h"
#include "parse_error.h"
#include "patcher.h"
#include "report.h"
#include "sandbox.h"
#include "spec.h"
#include "state.h"
#include "stdin_reader.h"
#include "watchdog.h"

namespace gnh {

namespace {

constexpr size_t kMaxSpecBytes = 16 * 1024 * 1024;

long long micros_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count();
}

// Holds the container's init process so a pid reused after it exits cannot redirect our writes.
class PidPin {
 public:
  explicit PidPin(int pid) {
    fd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (fd_ < 0 && errno == ESRCH) fail("container process " + std::to_string(pid) + " does not exist");
  }
  ~PidPin() { if (fd_ >= 0) ::close(fd_); }
  void confirm_alive(int pid) const {
    if (fd_ < 0) return;  // kernel without pidfd_open: best effort
    // Only ESRCH means it is gone; EPERM would be a permission problem, not an exit.
    if (::syscall(SYS_pidfd_send_signal, fd_, 0, nullptr, 0) != 0 && errno == ESRCH)
      fail("container process " + std::to_string(pid) + " exited while the hook ran");
  }
 private:
  int fd_ = -1;
};

}  // namespace

int run_hook(const GlobalOptions& opts, const std::string& stage, const std::vector<std::string>& next_hook_args) {
  auto t0 = std::chrono::steady_clock::now();
  HostFs fs(opts.host_root.value_or("/"));
  Config config;
  std::string config_error;
  try {
    config = load_config(fs, opts.config_path);
  } catch (const std::exception& e) {
    config_error = e.what();
  }
  EventLog log(config.log, fs);
  LogRecord rec;
  rec.stage = stage;
  const bool refuse_on_error = config.policy.on_error == OnErrorPolicy::refuse;

  std::string sandbox_note;
  auto finish = [&](int code) {
    rec.duration_us = micros_since(t0);
    if (!sandbox_note.empty()) rec.msg += " (sandbox incomplete: " + sandbox_note + ")";
    log.write(rec);
    return code;
  };
  auto hook_error = [&](const std::string& what) {
    rec.level = "error";
    rec.action = refuse_on_error ? "refuse" : "allow";
    rec.msg = "hook error: " + what + " (policy on-error=" + to_string(config.policy.on_error) + ")";
    if (refuse_on_error) std::fprintf(stderr, "%s\n", error_line(rec.container, what).c_str());
    return finish(refuse_on_error ? 2 : 0);
  };
  if (!config_error.empty()) return hook_error(config_error);

  std::string input;
  try {
    input = read_all_stdin(kMaxStateBytes, Deadline(std::chrono::milliseconds(config.deadline_ms)));
  } catch (const Failure& f) {
    return hook_error(f.what());
  }

  if (!config.next_hook.empty()) {
    // Name the container in a chained-hook failure. Only here is the state parsed before the
    // sandbox: the next hook needs everything, so the sandbox must wait for it anyway. A state that
    // does not parse is reported properly further down.
    try {
      rec.container = oci::parse_state(input).id;
    } catch (const std::exception&) {
    }
    NextHookResult r = run_next_hook(config.next_hook, next_hook_args, input, config.chain_timeout_ms);
    if (!r.error.empty() || r.timed_out || r.exit_code != 0) {
      std::string what = !r.error.empty() ? r.error
                         : r.timed_out    ? "next hook " + config.next_hook + " ran past " +
                                             std::to_string(config.chain_timeout_ms) + " ms and was killed"
                                          : "next hook " + config.next_hook + " failed with exit status " +
                                             std::to_string(r.exit_code);
      rec.level = "error";
      rec.action = "refuse";
      rec.msg = what + "; the start stops there, our check did not run";
      // A next hook that ran and failed has said why itself; one that could not run or hung has not.
      if (!r.error.empty() || r.timed_out) std::fprintf(stderr, "%s\n", refusal_line(rec.container, what).c_str());
      return finish(r.exit_code != 0 ? r.exit_code : 1);
    }
  }

  // Start-up is over: the config is read, the log is open (spdlog opens its file at construction)
  // and the chained hook, which needs everything, has run. The rest parses hostile text.
  sandbox_note = enter_hook_sandbox();

  Deadline deadline(std::chrono::milliseconds(config.deadline_ms));
  auto arm = [&]() {
    LogRecord t = rec;
    t.level = "error";
    t.action = refuse_on_error ? "refuse" : "allow";
    std::string what = "the hook ran past its deadline of " + std::to_string(config.deadline_ms) +
                       " ms (a blocked driver or cgroup file?)";
    t.msg = "hook error: " + what;
    t.duration_us = config.deadline_ms * 1000LL;
    std::string line = config.log.format == LogFormat::json ? format_json(t, "-", ::getpid()) : format_text(t, "-", ::getpid());
    // The watchdog is the last line: it fires a little after the deadline the code itself checks
    // (stdin, the lock, before each write), so a cooperative give-up wins whenever one can.
    int grace_ms = std::min(config.deadline_ms / 4, 1000);
    arm_watchdog(config.deadline_ms + grace_ms, log.file_path(), line,
                 refuse_on_error ? error_line(rec.container, what) : "", refuse_on_error ? 2 : 0);
  };
  arm();

  try {
    oci::State state = oci::parse_state(input);
    rec.container = state.id;
    arm();
    if (state.bundle.front() != '/') fail("bundle path '" + state.bundle.substr(0, 200) + "' is not absolute");
    if (state.pid <= 0) fail("the OCI state has no container pid");
    if (state.pid == 1) fail("the OCI state names pid 1, the host's init, not a container process");
    std::optional<PidPin> pin;
    if (fs.is_real_root()) pin.emplace(state.pid);

    auto spec_text = fs.read(state.bundle + "/config.json", kMaxSpecBytes);
    if (!spec_text) fail("bundle " + state.bundle.substr(0, 200) + " has no config.json");
    oci::Spec spec = oci::parse_spec(*spec_text);

    Evaluation ev = evaluate(fs, config, spec, state.pid);
    if (pin) pin->confirm_alive(state.pid);
    rec.gpus = ev.gpu_list();
    rec.required = ev.decision.required.to_display();
    rec.action = to_string(ev.decision.action);
    rec.msg = ev.decision.message;
    if (ev.location) {
      rec.cgroup = ev.location->path;
      rec.mems_before = ev.mems.effective.to_display();
      rec.mems_after = rec.mems_before;
    }

    switch (ev.decision.action) {
      case Action::allow:
        disarm_watchdog();
        return finish(0);
      case Action::warn:
        disarm_watchdog();
        rec.level = "warn";
        return finish(0);
      case Action::refuse:
        disarm_watchdog();
        rec.level = "error";
        std::fprintf(stderr, "%s\n", refusal_line(state.id, ev.decision.message).c_str());
        return finish(1);
      case Action::patch: {
        CpusetTree tree(fs, ev.location->version, ev.location->mount_point);
        PatchOutcome out = apply_patch(tree, ev.location->path, ev.decision.to_add, fs.resolve(config.lock_path), deadline);
        disarm_watchdog();
        // No lock, nothing tried: the hook could not do its job, the cgroup is not at fault.
        if (!out.ok && !out.locked) return hook_error(out.error);
        if (!out.ok) {
          rec.action = "refuse";
          rec.level = "error";
          std::string msg = "GPU " + rec.gpus + " needs NUMA node " + ev.decision.to_add.to_string() +
                            " but patching cgroup " + ev.location->path + " failed: " + out.error +
                            "; no node was removed; fix the cgroup by hand or run 'gpu-numa-hook check --fix'";
          rec.msg = msg;
          std::fprintf(stderr, "%s\n", refusal_line(state.id, msg).c_str());
          return finish(1);
        }
        rec.mems_after = out.effective_after.to_display();
        std::string written;
        for (const auto& s : out.steps) written += (written.empty() ? "" : ", ") + s.path + " " + s.before.to_display() + "->" + s.after.to_string();
        rec.msg += "; wrote " + (written.empty() ? std::string("nothing (already healed by another start)") : written);
        return finish(0);
      }
    }
    return finish(0);
  } catch (const Failure& f) {
    disarm_watchdog();
    return hook_error(f.what());
  } catch (const oci::ParseError& e) {
    disarm_watchdog();
    return hook_error(e.what());
  } catch (const std::exception& e) {
    disarm_watchdog();
    return hook_error(std::string("unexpected: ") + e.what());
  }
}

}  // namespace gnh
