#include "host/event_log.h"

#include <unistd.h>

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/syslog_sink.h>
#include <spdlog/spdlog.h>

namespace gnh {

namespace {
spdlog::level::level_enum level_of(const std::string& s) {
  if (s == "trace") return spdlog::level::trace;
  if (s == "debug") return spdlog::level::debug;
  if (s == "warn") return spdlog::level::warn;
  if (s == "error") return spdlog::level::err;
  if (s == "off") return spdlog::level::off;
  return spdlog::level::info;
}
}  // namespace

EventLog::EventLog(const LogConfig& config, const HostFs& fs) : config_(config) {
  std::vector<spdlog::sink_ptr> sinks;
  if (!config.file.empty() && config.level != "off") {
    path_ = fs.resolve(config.file);
    try {
      sinks.push_back(std::make_shared<spdlog::sinks::basic_file_sink_st>(path_, false));
    } catch (const spdlog::spdlog_ex& e) {
      open_error_ = "cannot open log file " + path_ + ": " + e.what();
      path_.clear();
    }
  }
  if (config.syslog && config.level != "off")
    sinks.push_back(std::make_shared<spdlog::sinks::syslog_sink_st>("gpu-numa-hook", LOG_PID, LOG_DAEMON, false));
  if (sinks.empty()) return;
  logger_ = std::make_shared<spdlog::logger>("gpu-numa-hook", sinks.begin(), sinks.end());
  // Our record is already the whole line (time, level, pid, fields): spdlog only carries it.
  logger_->set_pattern("%v");
  logger_->set_level(level_of(config.level));
  logger_->flush_on(spdlog::level::trace);
  if (!open_error_.empty()) logger_->error(open_error_);
}

EventLog::~EventLog() = default;

void EventLog::write(const LogRecord& r) {
  if (!logger_) return;
  std::string line = config_.format == LogFormat::json ? format_json(r, utc_timestamp_now(), ::getpid())
                                                       : format_text(r, utc_timestamp_now(), ::getpid());
  logger_->log(level_of(r.level), line);
}

}  // namespace gnh
