// Runs one job at a time on a worker thread and waits for it at most a deadline, so a call whose
// host reads hang (a wedged driver file, an NFS-backed sysfs path, a stuck cgroupfs) is answered
// in time anyway. A job past its deadline is abandoned, not killed: it finishes (or not) on the
// worker, which takes no other job meanwhile; calls made while it is stuck are refused at once.
// One worker, never two jobs at once: the handler it runs need not be thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <memory>

namespace gnh::nri {

class BoundedCall {
 public:
  enum class Outcome { done, timed_out, busy };

  BoundedCall();
  // Never blocks on a stuck job: the worker is then left to finish it and exit on its own.
  ~BoundedCall();
  BoundedCall(const BoundedCall&) = delete;
  BoundedCall& operator=(const BoundedCall&) = delete;

  // `job` runs on the worker. done: it returned within `deadline` (what it wrote is visible now).
  // timed_out: it is still running and abandoned; whatever it captured must stay valid on its own
  // (share it), and the caller must not read what it writes. busy: an abandoned job still runs;
  // `job` was not started.
  Outcome run(std::function<void()> job, std::chrono::milliseconds deadline);

  // True on the worker while it runs a job already abandoned at its deadline: what such a job
  // logs must say that its result was never used (the runtime got "no adjustment").
  static bool in_abandoned_job();

  // Waits (at most `limit`) until no job runs; true when idle. For tests and orderly shutdown.
  bool wait_idle(std::chrono::milliseconds limit);

 private:
  struct State;
  static void work(const std::shared_ptr<State>& s);
  std::shared_ptr<State> state_;
};

// The deadline for one call from the runtime's per-request timeout (Configure's request_timeout,
// ms; 0 when the runtime does not send it, as nri 0.6 does not: its default, 2 s): three quarters
// of it, leaving the rest for our answer to travel, within [50 ms, 10 s].
std::chrono::milliseconds call_deadline(long long request_timeout_ms);

}  // namespace gnh::nri
