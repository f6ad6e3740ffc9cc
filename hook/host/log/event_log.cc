#include "host/log/event_log.h"

#include <unistd.h>

#include <utility>

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
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

spdlog::sink_ptr syslog_sink() {
  // syslog(3) connects to /dev/log on the first message; the hook's sandbox allows that AF_UNIX
  // socket (docs/internals/sandbox.md), so a fallback that starts after the sandbox still reaches syslog.
  return std::make_shared<spdlog::sinks::syslog_sink_st>("gpu-numa-hook", LOG_PID, LOG_DAEMON, false);
}
}  // namespace

EventLog::EventLog(const LogConfig& config, const HostFs& fs, std::string program)
    : config_(config), program_(std::move(program)) {
  if (config.level == "off") return;
  std::vector<spdlog::sink_ptr> sinks;
  std::string open_error;
  if (!config.file.empty()) {
    path_ = fs.resolve(config.file);
    try {
      sinks.push_back(std::make_shared<spdlog::sinks::basic_file_sink_st>(path_, false));
    } catch (const spdlog::spdlog_ex& e) {
      open_error = e.what();
    }
  }
  if (config.syslog) sinks.push_back(syslog_sink());
  if (sinks.empty() && open_error.empty()) return;
  logger_ = std::make_shared<spdlog::logger>("gpu-numa-hook", sinks.begin(), sinks.end());
  // Our record is already the whole line (time, level, pid, fields): spdlog only carries it.
  logger_->set_pattern("%v");
  logger_->set_level(level_of(config.level));
  logger_->flush_on(spdlog::level::trace);
  // spdlog's own handler prints to stderr in its format; ours notes the failure for write().
  logger_->set_error_handler([this](const std::string& msg) {
    if (write_error_.empty()) write_error_ = msg;
  });
  if (!open_error.empty()) fall_back(open_error);
}

EventLog::~EventLog() = default;

void EventLog::fall_back(const std::string& what) {
  if (fell_back_) return;
  fell_back_ = true;
  const std::string file = path_;
  path_.clear();  // the watchdog must not write there either
  auto& sinks = logger_->sinks();
  sinks.clear();
  sinks.push_back(std::make_shared<spdlog::sinks::stderr_sink_st>());
  sinks.push_back(syslog_sink());
  logger_->set_pattern("%v");  // for the new sinks too: the record is the whole line
  // At error level, so a log kept at warn or error still shows it.
  logger_->log(spdlog::level::err, program_ + "[" + std::to_string(::getpid()) + "]: cannot write the log file " +
                                       file + " (" + what + "): this and later records go to stderr and syslog");
}

void EventLog::write(const LogRecord& r) {
  if (!logger_) return;
  std::string line = config_.format == LogFormat::json ? format_json(r, utc_timestamp_now(), ::getpid())
                                                       : format_text(r, utc_timestamp_now(), ::getpid());
  write_error_.clear();
  logger_->log(level_of(r.level), line);
  // A full disk or an I/O error at this write (flush_on(trace): each record is flushed): the record
  // goes where the others will.
  if (!write_error_.empty() && !fell_back_) {
    fall_back(write_error_);
    logger_->log(level_of(r.level), line);
  }
}

}  // namespace gnh
