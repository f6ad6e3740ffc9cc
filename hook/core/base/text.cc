#include "base/text.h"

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace gnh {

std::string_view trim(std::string_view s) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view base_name(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
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

// Eight bytes at a time where none is below 0x20 or above 0x7e (the usual comment), byte by byte
// in a word that has one: this runs over most of the config on every container start.
bool printable_ascii_or_tab(std::string_view s) {
  constexpr uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    uint64_t below_space = (w - ones * 0x20) & ~w & highs;  // some byte < 0x20
    uint64_t above_tilde = ((w + ones * 0x01) | w) & highs;  // some byte >= 0x7f
    if ((below_space | above_tilde) == 0) continue;
    for (size_t k = i; k < i + 8; ++k) {
      unsigned char c = static_cast<unsigned char>(s[k]);
      if (!(c == '\t' || (c >= 0x20 && c < 0x7f))) return false;
    }
  }
  for (; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (!(c == '\t' || (c >= 0x20 && c < 0x7f))) return false;
  }
  return true;
}

}  // namespace gnh
