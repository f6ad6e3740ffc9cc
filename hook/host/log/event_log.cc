#include "host/log/event_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace gnh {

namespace {

// The levels a record or the config can name, in order; "off" is above them all.
enum Level { kTrace, kDebug, kInfo, kWarn, kError, kOff };

int level_of(const std::string& s) {
  if (s == "trace") return kTrace;
  if (s == "debug") return kDebug;
  if (s == "warn") return kWarn;
  if (s == "error") return kError;
  if (s == "off") return kOff;
  return kInfo;
}

int syslog_priority(int level) {
  switch (level) {
    case kTrace:
    case kDebug: return LOG_DEBUG;
    case kWarn: return LOG_WARNING;
    case kError: return LOG_ERR;
    default: return LOG_INFO;
  }
}

// The whole buffer, retrying short writes and EINTR; false with errno set on failure.
bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return false;
    if (w == 0) {
      errno = EIO;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// The log's directory, made as `mkdir -p` would (a fresh /var/log/gpu-numa-hook/ on first use).
// Failures are left to the open that follows, which names them.
void make_parent_dirs(const std::string& file) {
  for (size_t slash = file.find('/', 1); slash != std::string::npos; slash = file.find('/', slash + 1))
    ::mkdir(file.substr(0, slash).c_str(), 0755);
}

}  // namespace

// The file is written with plain open(2) and one write(2) a record: O_APPEND makes each line one
// atomic append beside concurrent hooks, and a logging library's set-up cost more than the record
// (docs/internals/benchmarks.md).
EventLog::EventLog(const LogConfig& config, const HostFs& fs, std::string program)
    : config_(config), program_(std::move(program)), threshold_(level_of(config.level)) {
  if (threshold_ == kOff) return;
  syslog_ = config.syslog;
  if (syslog_) ::openlog("gpu-numa-hook", LOG_PID, LOG_DAEMON);  // connects at the first message
  if (config.file.empty()) return;
  path_ = fs.resolve(config.file);
  const int flags = O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY;
  fd_ = ::open(path_.c_str(), flags, 0640);
  if (fd_ < 0 && errno == ENOENT) {  // a directory is missing: only then pay for the mkdirs
    make_parent_dirs(path_);
    fd_ = ::open(path_.c_str(), flags, 0640);
  }
  if (fd_ < 0) fall_back(std::string("open failed: ") + std::strerror(errno));
}

EventLog::~EventLog() {
  if (fd_ >= 0) ::close(fd_);
}

bool EventLog::emit(int level, const std::string& line, std::string* what) {
  bool ok = true;
  if (fd_ >= 0) {
    std::string record = line + "\n";
    if (!write_all(fd_, record.data(), record.size())) {
      *what = std::string("write failed: ") + std::strerror(errno);
      ok = false;
    }
  }
  if (stderr_) {
    std::string record = line + "\n";
    write_all(2, record.data(), record.size());
  }
  if (syslog_) ::syslog(syslog_priority(level), "%s", line.c_str());
  return ok;
}

void EventLog::fall_back(const std::string& what) {
  if (fell_back_) return;
  fell_back_ = true;
  const std::string file = path_;
  path_.clear();  // the watchdog must not write there either
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  stderr_ = true;
  if (!syslog_) ::openlog("gpu-numa-hook", LOG_PID, LOG_DAEMON);
  syslog_ = true;
  // At error level, so a log kept at warn or error still shows it.
  std::string ignored;
  emit(kError,
       program_ + "[" + std::to_string(::getpid()) + "]: cannot write the log file " + file + " (" + what +
           "): this and later records go to stderr and syslog",
       &ignored);
}

void EventLog::write(const LogRecord& r) {
  const int level = level_of(r.level);
  if (threshold_ == kOff || level < threshold_ || (fd_ < 0 && !stderr_ && !syslog_)) return;
  std::string line = config_.format == LogFormat::json ? format_json(r, utc_timestamp_now(), ::getpid())
                                                       : format_text(r, utc_timestamp_now(), ::getpid());
  std::string what;
  // A full disk or an I/O error at this write: the record goes where the others will.
  if (!emit(level, line, &what)) {
    fall_back(what);
    emit(level, line, &what);
  }
}

}  // namespace gnh
