#include "base/text.h"

#include <cstdio>

namespace gnh {

std::string_view trim(std::string_view s) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

std::string one_line(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\n' || c == '\r' || c == '\t') out += ' ';
    else if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) out += c;
    else {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\x%02x", static_cast<unsigned char>(c));
      out += esc;
    }
  }
  return out;
}

}  // namespace gnh
