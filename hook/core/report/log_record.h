// The one log line every invocation writes, in text or JSON-lines form. Formatting is pure so the
// exact shape is testable; EventLog (event_log.h) writes it.
#pragma once

#include <string>

#include "report/container_names.h"

namespace gnh {

struct LogRecord {
  std::string program = "gpu-numa-hook";  // who wrote the line: gpu-numa-hook or gpu-numa-runtime
  std::string level = "info";  // info, warn, error
  std::string container = "-";
  // The pod and the container's name in it when the engine passed them (already printable):
  // an empty one leaves its field out of the line.
  ContainerNames names;
  std::string stage = "-";
  std::string action = "allow";
  std::string gpus = "-";
  std::string required = "-";
  std::string mems_before = "-";
  std::string mems_after = "-";
  std::string cgroup = "-";
  long long duration_us = 0;
  std::string msg;
};

// "2026-11-21T04:30:00.123456Z info gpu-numa-hook[4242] container=... [pod=ns/name] [name=c] stage=... msg=\"...\""
std::string format_text(const LogRecord& r, const std::string& timestamp, int pid);
std::string format_json(const LogRecord& r, const std::string& timestamp, int pid);
// UTC, microseconds, ISO 8601.
// sec.usec since the epoch as "YYYY-MM-DDTHH:MM:SS.uuuuuuZ".
std::string utc_timestamp(long long sec, long usec);
std::string utc_timestamp_now();
// Quotes a value for the text format: newlines and quotes escaped so one record stays one line.
std::string quote_text(const std::string& s);

}  // namespace gnh
