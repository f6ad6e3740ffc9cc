// Where decisions go: the log file (and syslog when configured). crun and podman hide a hook's
// stderr, so this is where operators look.
#pragma once

#include <memory>
#include <string>

#include "config/config.h"
#include "host/host_fs.h"
#include "report/log_record.h"

namespace spdlog { class logger; }

namespace gnh {

class EventLog {
 public:
  // Never fails: a log that cannot be opened must not block a container start; the problem is
  // reported through syslog when that is on.
  EventLog(const LogConfig& config, const HostFs& fs);
  ~EventLog();
  void write(const LogRecord& r);
  // The resolved file path ("" when none); the deadline watchdog appends to it directly.
  const std::string& file_path() const { return path_; }

 private:
  LogConfig config_;
  std::string path_;
  std::string open_error_;
  std::shared_ptr<spdlog::logger> logger_;
};

}  // namespace gnh
