#include "require/version.h"

namespace gnh {

std::string Version::to_string() const {
  if (!text.empty()) return text;
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? "." : "") + std::to_string(parts[i]);
  return s;
}

std::optional<Version> parse_version(std::string_view s) {
  Version v;
  size_t i = 0;
  while (true) {
    size_t start = i;
    uint32_t n = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (i - start >= 9) return std::nullopt;
      n = n * 10 + static_cast<uint32_t>(s[i] - '0');
      ++i;
    }
    if (i == start || v.parts.size() == kMaxVersionParts) return std::nullopt;
    v.parts.push_back(n);
    if (i == s.size()) {
      v.text = std::string(s);
      return v;
    }
    if (s[i] != '.') return std::nullopt;
    ++i;
  }
}

int compare(const Version& a, const Version& b) {
  size_t n = std::max(a.parts.size(), b.parts.size());
  for (size_t i = 0; i < n; ++i) {
    uint32_t x = i < a.parts.size() ? a.parts[i] : 0, y = i < b.parts.size() ? b.parts[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

}  // namespace gnh
