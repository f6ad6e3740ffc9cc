// The plugin's log: each record to the configured log (file, journal) and once to stderr, which
// `kubectl logs` shows. Any thread may write: the container calls, the heartbeat, the scan.
#pragma once

#include <mutex>
#include <string>

#include "host/log/event_log.h"
#include "report/log_record.h"

namespace gnh::nri {

// A record of the plugin's own, about no container: its connection, endpoint, hook, scan.
LogRecord plugin_record(const char* stage, const char* level, const char* action, std::string msg);

class PluginLog {
 public:
  PluginLog(const LogConfig& config, const HostFs& fs) : log_(config, fs, "gpu-numa-nri") {}
  void write(LogRecord r);
  // A record of the plugin's own, about no container: its connection, endpoint, hook, scan.
  void plugin_event(const char* stage, const char* level, const char* action, const std::string& msg);

 private:
  std::mutex m_;  // the log's sinks are single-threaded
  EventLog log_;
};

}  // namespace gnh::nri
