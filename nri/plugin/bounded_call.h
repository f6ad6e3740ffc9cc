// Runs one job at a time on a worker thread and waits for it at most a deadline, so a call whose
// host reads hang (a wedged driver file, an NFS-backed sysfs path, a stuck cgroupfs) is answered
// in time anyway. A job past its deadline is abandoned, not killed: it finishes (or not) on its
// worker, and the next job gets a fresh worker, so one hung read never turns every later container
// away. At most `max_stuck` abandoned jobs run at once (threads stuck in the kernel are not free);
// past that, calls are refused at once until one of them ends. So the handler may run on two
// threads at once (an abandoned job beside a new one), never two new jobs at once.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>

namespace gnh::nri {

class BoundedCall {
 public:
  enum class Outcome { done, timed_out, busy };

  explicit BoundedCall(int max_stuck = 4);
  // Never blocks on a stuck job: the worker is then left to finish it and exit on its own.
  ~BoundedCall();
  BoundedCall(const BoundedCall&) = delete;
  BoundedCall& operator=(const BoundedCall&) = delete;

  // `job` runs on the worker. done: it returned within `deadline` (what it wrote is visible now).
  // timed_out: it is still running and abandoned; whatever it captured must stay valid on its own
  // (share it), and the caller must not read what it writes. busy: `max_stuck` abandoned jobs
  // still run; `job` was not started.
  Outcome run(std::function<void()> job, std::chrono::milliseconds deadline);

  // True on the worker while it runs a job already abandoned at its deadline: what such a job
  // logs must say that its result was never used (the runtime got "no adjustment").
  static bool in_abandoned_job();

  // Waits (at most `limit`) until no job runs on the current worker; true when idle. For tests
  // and orderly shutdown.
  bool wait_idle(std::chrono::milliseconds limit);

  // Abandoned jobs still running (stuck in host reads): the state file and status show it.
  int stuck() const;

 private:
  struct State;
  static void work(const std::shared_ptr<State>& s);
  static std::shared_ptr<State> start_worker(const std::shared_ptr<std::atomic<int>>& stuck);
  const int max_stuck_;
  std::shared_ptr<std::atomic<int>> stuck_;  // shared with every worker, retired ones too
  std::shared_ptr<State> state_;             // the worker new jobs go to
};

// The deadline for one call from the runtime's per-request timeout (Configure's request_timeout,
// ms; 0 when the runtime does not send it, as nri 0.6 does not: its default, 2 s): three quarters
// of it, leaving the rest for our answer to travel, within [50 ms, 10 s].
std::chrono::milliseconds call_deadline(long long request_timeout_ms);

}  // namespace gnh::nri
