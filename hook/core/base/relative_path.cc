#include "base/relative_path.h"

namespace gnh {

std::string_view strip_slashes(std::string_view s) {
  while (!s.empty() && s.front() == '/') s.remove_prefix(1);
  while (!s.empty() && s.back() == '/') s.remove_suffix(1);
  return s;
}

bool is_clean_relative_path(std::string_view rel) {
  if (rel.find('\0') != std::string_view::npos) return false;
  rel = strip_slashes(rel);
  if (rel.empty()) return true;
  size_t start = 0;
  while (start <= rel.size()) {
    size_t end = rel.find('/', start);
    if (end == std::string_view::npos) end = rel.size();
    std::string_view part = rel.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

}  // namespace gnh
