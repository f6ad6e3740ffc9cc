#include "runtime/runc_log_entry.h"

#include <nlohmann/json.hpp>

namespace gnh {

std::string runc_log_error_line(const std::string& format, const std::string& msg, const std::string& timestamp) {
  if (format == "json") {
    nlohmann::ordered_json j = {{"level", "error"}, {"msg", msg}, {"time", timestamp}};
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  std::string quoted;
  for (char ch : msg) {
    if (ch == '"' || ch == '\\') quoted += '\\';
    if (ch == '\n') { quoted += "\\n"; continue; }
    quoted += ch;
  }
  return "time=\"" + timestamp + "\" level=error msg=\"" + quoted + "\"\n";
}

}  // namespace gnh
