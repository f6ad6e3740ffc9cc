#include "plugin/plugin_log.h"

#include <unistd.h>

#include <cstdio>

#include "plugin/bounded_call.h"

namespace gnh::nri {

void PluginLog::write(LogRecord r) {
  std::lock_guard<std::mutex> l(m_);
  // A container call past its deadline was answered "no adjustment"; what it decides later is
  // never applied, and its line must not read as if it were.
  if (BoundedCall::in_abandoned_job())
    r.msg = "not applied (finished after the runtime's deadline; the runtime was answered with no adjustment): " + r.msg;
  log_.write(r);
  // stderr is what `kubectl logs` shows; a log that fell back to stderr already put the line there.
  if (!log_.fell_back()) std::fprintf(stderr, "%s\n", format_text(r, utc_timestamp_now(), int(::getpid())).c_str());
}

LogRecord plugin_record(const char* stage, const char* level, const char* action, std::string msg) {
  LogRecord r;
  r.program = "gpu-numa-nri";
  r.level = level;
  r.stage = stage;
  r.action = action;
  r.msg = std::move(msg);
  return r;
}

void PluginLog::plugin_event(const char* stage, const char* level, const char* action, const std::string& msg) {
  write(plugin_record(stage, level, action, msg));
}

}  // namespace gnh::nri
