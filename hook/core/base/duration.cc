#include "base/duration.h"

#include <cstdlib>

namespace gnh {

std::optional<double> parse_duration_seconds(std::string_view text, std::string* why) {
  const std::string shown = "'" + std::string(text.substr(0, 40)) + (text.size() > 40 ? "...'" : "'");
  const std::string expected = "; expected a duration such as 90s, 5m, 1500ms, 1h or plain seconds";
  size_t digits_end = 0;
  bool dot = false, digit = false;
  for (; digits_end < text.size(); ++digits_end) {
    char c = text[digits_end];
    if (c >= '0' && c <= '9') digit = true;
    else if (c == '.' && !dot) dot = true;
    else break;
  }
  if (!text.empty() && text.front() == '-') {
    *why = shown + " is negative" + expected;
    return std::nullopt;
  }
  if (!digit) {
    *why = shown + " is not a number" + expected;
    return std::nullopt;
  }
  std::string_view unit = text.substr(digits_end);
  double scale = 0;
  if (unit.empty() || unit == "s") scale = 1;
  else if (unit == "ms") scale = 0.001;
  else if (unit == "m") scale = 60;
  else if (unit == "h") scale = 3600;
  else {
    *why = shown + " has an unknown unit '" + std::string(unit.substr(0, 10)) + "'" + expected;
    return std::nullopt;
  }
  // At most 30 digits reach strtod: more cannot be a week anyway, and the message says so below.
  std::string number(text.substr(0, digits_end < 30 ? digits_end : 30));
  double value = std::strtod(number.c_str(), nullptr) * scale;
  if (digits_end > 30 || value > kMaxDurationSeconds) {
    *why = shown + " is longer than a week (7d)";
    return std::nullopt;
  }
  return value;
}

}  // namespace gnh
