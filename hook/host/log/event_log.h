// Where decisions go: the log file (and syslog when configured). crun and podman hide a hook's
// stderr, so this is where operators look. A log file that cannot be written (a directory, a full
// disk, a read-only /var) is never a silent loss: the records go to stderr and syslog instead, with
// one line saying so (docs/operate.md, "When the log file cannot be written").
#pragma once

#include <string>

#include "config/config.h"
#include "host/fs/host_fs.h"
#include "report/log_record.h"

namespace gnh {

class EventLog {
 public:
  // Never fails: a log that cannot be opened must not block a container start. `program` names
  // the writer in the line that says the file failed ("gpu-numa-nri[pid]: cannot write ...").
  EventLog(const LogConfig& config, const HostFs& fs, std::string program = "gpu-numa-hook");
  ~EventLog();
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;
  void write(const LogRecord& r);
  // The resolved file path ("" when none); the deadline watchdog appends to it directly.
  const std::string& file_path() const { return path_; }
  // The log file failed (at open or at a write) and records go to stderr and syslog.
  bool fell_back() const { return fell_back_; }

 private:
  // what: "open failed: Is a directory". Swaps the file for stderr and syslog, once, and says so.
  void fall_back(const std::string& what);
  // One line to every sink in use; false when the file's write failed (what says why).
  bool emit(int level, const std::string& line, std::string* what);

  LogConfig config_;
  std::string program_;
  std::string path_;
  int threshold_;      // records below this level are not written
  int fd_ = -1;        // the log file, opened once (O_APPEND)
  bool syslog_ = false;
  bool stderr_ = false;
  bool fell_back_ = false;
};

}  // namespace gnh
