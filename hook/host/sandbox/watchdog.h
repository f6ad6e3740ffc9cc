// The last line of defence against a hang (a driver file read that blocks, a stuck cgroup write):
// after the deadline a timer signal writes a prepared line to the log (and stderr when refusing)
// and exits with the on-error status. Everything the handler does is async-signal-safe.
#pragma once

#include <string>

namespace gnh {

// (Re)arms the watchdog; may be called again to update the lines once more is known.
void arm_watchdog(int deadline_ms, const std::string& log_path, const std::string& log_line,
                  const std::string& stderr_line, int exit_code);
void disarm_watchdog();

// The watchdog for one scope: whichever way the scope ends, it is disarmed.
class WatchdogGuard {
 public:
  WatchdogGuard() = default;
  ~WatchdogGuard() { disarm(); }
  WatchdogGuard(const WatchdogGuard&) = delete;
  WatchdogGuard& operator=(const WatchdogGuard&) = delete;
  void arm(int deadline_ms, const std::string& log_path, const std::string& log_line, const std::string& stderr_line,
           int exit_code) {
    arm_watchdog(deadline_ms, log_path, log_line, stderr_line, exit_code);
    armed_ = true;
  }
  void disarm() {
    if (armed_) disarm_watchdog();
    armed_ = false;
  }

 private:
  bool armed_ = false;
};

}  // namespace gnh
