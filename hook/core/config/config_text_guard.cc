#include "config/config_text_guard.h"

#include <cstdint>
#include <cstring>

#include "base/error.h"

namespace gnh {

namespace {
// Eight bytes at a time (this runs on every container start over the whole config, where a byte
// loop with an early exit cost ~8 instructions a byte).
bool all_ascii(std::string_view text) {
  uint64_t acc = 0;
  size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, text.data() + i, 8);
    acc |= w;
  }
  for (; i < text.size(); ++i) acc |= static_cast<unsigned char>(text[i]);
  return (acc & 0x8080808080808080ULL) == 0;
}
}  // namespace

void check_config_text(std::string_view text, const std::string& file_name) {
  if (all_ascii(text)) return;  // the usual case, nothing to check
  // No multi-line strings: a '#' line inside one is content, and they hold the backslash case.
  bool multi_line = text.find("\"\"\"") != std::string_view::npos || text.find("'''") != std::string_view::npos;
  size_t line_no = 1, start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (all_ascii(line)) {  // nothing to check on this line
      ++line_no;
      start = end + 1;
      continue;
    }
    // The comment: a '#' at the line's start or after a blank, with no quote before it (so it
    // cannot be inside a string, and toml++ has ended any value before it).
    size_t comment = std::string_view::npos;
    for (size_t i = 0; i < line.size(); ++i) {
      char c = line[i];
      if (c == '"' || c == '\'' || static_cast<unsigned char>(c) >= 0x80) break;
      if (c == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) { comment = i; break; }
    }
    for (size_t i = 0; i < line.size(); ++i) {
      if (static_cast<unsigned char>(line[i]) < 0x80) continue;
      if (!multi_line && comment != std::string_view::npos && i > comment) break;
      fail("config " + file_name + ": line " + std::to_string(line_no) + ", column " + std::to_string(i + 1) +
           ": non-ASCII text is accepted only in comments (# at a line's start or after a blank)");
    }
    ++line_no;
    start = end + 1;
  }
}

}  // namespace gnh
