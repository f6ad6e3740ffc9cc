#include "config/config_text_guard.h"

#include "base/error.h"

namespace gnh {

void check_config_text(std::string_view text, const std::string& file_name) {
  size_t first = 0;
  while (first < text.size() && static_cast<unsigned char>(text[first]) < 0x80) ++first;
  if (first == text.size()) return;  // all ASCII: the usual case, nothing to check
  // No multi-line strings: a '#' line inside one is content, and they hold the backslash case.
  bool multi_line = text.find("\"\"\"") != std::string_view::npos || text.find("'''") != std::string_view::npos;
  size_t line_no = 1, start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
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
