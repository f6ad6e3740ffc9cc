#include "report/log_record.h"

#include <sys/time.h>

#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

namespace gnh {

std::string quote_text(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

namespace {
// Values that come from a container (its id) must not be able to forge fields or lines.
std::string token(const std::string& s) {
  for (char c : s)
    if (c == ' ' || c == '"' || c == '=' || static_cast<unsigned char>(c) < 0x21 || c == 0x7f) return quote_text(s);
  return s.empty() ? "-" : s;
}
}  // namespace

std::string format_text(const LogRecord& r, const std::string& ts, int pid) {
  std::string out = ts + " " + r.level + " gpu-numa-hook[" + std::to_string(pid) + "]";
  out += " container=" + token(r.container);
  out += " stage=" + token(r.stage);
  out += " action=" + token(r.action);
  out += " gpus=" + token(r.gpus);
  out += " required=" + token(r.required);
  out += " mems-before=" + token(r.mems_before);
  out += " mems-after=" + token(r.mems_after);
  out += " cgroup=" + token(r.cgroup);
  out += " duration-us=" + std::to_string(r.duration_us);
  out += " msg=" + quote_text(r.msg);
  return out;
}

std::string format_json(const LogRecord& r, const std::string& ts, int pid) {
  nlohmann::json j = {
      {"ts", ts},           {"level", r.level},     {"pid", pid},
      {"container", r.container}, {"stage", r.stage}, {"action", r.action},
      {"gpus", r.gpus},     {"required", r.required}, {"mems_before", r.mems_before},
      {"mems_after", r.mems_after}, {"cgroup", r.cgroup}, {"duration_us", r.duration_us},
      {"msg", r.msg},
  };
  // Replace invalid UTF-8 from hostile ids instead of throwing.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string utc_timestamp_now() {
  struct timeval tv;
  ::gettimeofday(&tv, nullptr);
  struct tm tm;
  ::gmtime_r(&tv.tv_sec, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long>(tv.tv_usec));
  return buf;
}

}  // namespace gnh
