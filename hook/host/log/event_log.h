// Where decisions go: the log file (and syslog when configured). crun and podman hide a hook's
// stderr, so this is where operators look. A log file that cannot be written (a directory, a full
// disk, a read-only /var) is never a silent loss: the records go to stderr and syslog instead, with
// one line saying so (docs/operate.md, "When the log file cannot be written").
#pragma once

#include <memory>
#include <string>

#include "config/config.h"
#include "host/fs/host_fs.h"
#include "report/log_record.h"

namespace spdlog { class logger; }

namespace gnh {

class EventLog {
 public:
  // Never fails: a log that cannot be opened must not block a container start. `program` names
  // the writer in the line that says the file failed ("gpu-numa-nri[pid]: cannot write ...").
  EventLog(const LogConfig& config, const HostFs& fs, std::string program = "gpu-numa-hook");
  ~EventLog();
  // spdlog's error handler points back at this object.
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;
  void write(const LogRecord& r);
  // The resolved file path ("" when none); the deadline watchdog appends to it directly.
  const std::string& file_path() const { return path_; }
  // The log file failed (at open or at a write) and records go to stderr and syslog.
  bool fell_back() const { return fell_back_; }

 private:
  // what: "cannot open ... : Is a directory". Swaps the file for stderr and syslog, once, and says so.
  void fall_back(const std::string& what);

  LogConfig config_;
  std::string program_;
  std::string path_;
  std::shared_ptr<spdlog::logger> logger_;
  std::string write_error_;  // set by spdlog's error handler during a write
  bool fell_back_ = false;
};

}  // namespace gnh
