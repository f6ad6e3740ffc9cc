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
  std::string out = ts + " " + r.level + " " + r.program + "[" + std::to_string(pid) + "]";
  out += " container=" + token(r.container);
  if (!r.names.pod().empty()) out += " pod=" + token(r.names.pod());
  if (!r.names.container_name.empty()) out += " name=" + token(r.names.container_name);
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
      {"ts", ts},           {"level", r.level},     {"program", r.program}, {"pid", pid},
      {"container", r.container}, {"stage", r.stage}, {"action", r.action},
      {"gpus", r.gpus},     {"required", r.required}, {"mems_before", r.mems_before},
      {"mems_after", r.mems_after}, {"cgroup", r.cgroup}, {"duration_us", r.duration_us},
      {"msg", r.msg},
  };
  if (!r.names.pod_namespace.empty()) j["pod_namespace"] = r.names.pod_namespace;
  if (!r.names.pod_name.empty()) j["pod_name"] = r.names.pod_name;
  if (!r.names.container_name.empty()) j["container_name"] = r.names.container_name;
  // Replace invalid UTF-8 from hostile ids instead of throwing.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string utc_timestamp(long long sec, long usec) {
  // Civil date from days since 1970-01-01 (H. Hinnant's days_from_civil, inverted), not gmtime_r:
  // glibc's gmtime_r reads /etc/localtime on first use (tzset), 7 system calls per container start
  // for a time zone a UTC stamp does not use.
  long long days = sec >= 0 ? sec / 86400 : (sec - 86399) / 86400;
  long long rem = sec - days * 86400;
  days += 719468;
  const long long era = (days >= 0 ? days : days - 146096) / 146097;
  const long long doe = days - era * 146097;
  const long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const long long mp = (5 * doy + 2) / 153;
  const long long d = doy - (153 * mp + 2) / 5 + 1;
  const long long m = mp < 10 ? mp + 3 : mp - 9;
  const long long y = yoe + era * 400 + (m <= 2);
  char buf[128];  // room for any long long, so the compiler can prove no truncation
  std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%06ldZ", y, m, d, rem / 3600,
                rem / 60 % 60, rem % 60, usec);
  return buf;
}

std::string utc_timestamp_now() {
  struct timeval tv;
  ::gettimeofday(&tv, nullptr);
  return utc_timestamp(tv.tv_sec, static_cast<long>(tv.tv_usec));
}

}  // namespace gnh
