// Where decisions go: the log file (and syslog when configured). crun and podman hide a hook's
// stderr, so this is where operators look.
#pragma once

#include <memory>
#include <string>

#include "config.h"
#include "host_fs.h"
#include "log_record.h"

namespace spdlog { class logger; }

namespace gnh {

class EventLog {
 public:
  // Never fails: a log that cannot be opened must not block a container start; the problem is
  // reported through syslog when that is on, and by `explain`.
  EventLog(const LogConfig& config, const HostFs& fs);
  ~EventLog();
  void write(const LogRecord& r);
  const std::string& open_error() const { return open_error_; }
  // The resolved file path ("" when none); the deadline watchdog appends to it directly.
  const std::string& file_path() const { return path_; }

 private:
  LogConfig config_;
  std::string path_;
  std::string open_error_;
  std::shared_ptr<spdlog::logger> logger_;
};

}  // namespace gnh
