#include "cgroup/cgroup_prediction.h"

#include "base/relative_path.h"

namespace gnh {

std::string expand_systemd_slice(std::string_view slice) {
  if (slice.empty() || slice == "-.slice") return "/";
  std::string_view stem = slice;
  if (stem.size() > 6 && stem.substr(stem.size() - 6) == ".slice") stem.remove_suffix(6);
  std::string out;
  size_t pos = 0;
  // Each dash-separated prefix is a parent slice: a-b-c.slice lives in a.slice/a-b.slice/.
  while ((pos = stem.find('-', pos)) != std::string_view::npos) {
    out += "/" + std::string(stem.substr(0, pos)) + ".slice";
    ++pos;
  }
  out += "/" + std::string(slice);
  return out;
}

std::optional<std::string> cgroup_from_cgroups_path(std::string_view p) {
  if (p.empty()) return std::nullopt;
  std::string out;
  if (p.front() == '/') {
    out = std::string(p);
  } else {
    size_t c1 = p.find(':');
    size_t c2 = c1 == std::string_view::npos ? c1 : p.find(':', c1 + 1);
    if (c2 == std::string_view::npos || p.find(':', c2 + 1) != std::string_view::npos) {
      // A relative cgroupfs path: runtimes put it under their own default parent; take it as given.
      out = "/" + std::string(p);
    } else {
      std::string_view slice = p.substr(0, c1), prefix = p.substr(c1 + 1, c2 - c1 - 1), name = p.substr(c2 + 1);
      if (name.empty() || slice.find('/') != std::string_view::npos) return std::nullopt;
      std::string base = expand_systemd_slice(slice.empty() ? "system.slice" : slice);
      std::string unit = name.size() > 6 && name.substr(name.size() - 6) == ".slice"
                             ? std::string(name)
                             : (prefix.empty() ? std::string(name) : std::string(prefix) + "-" + std::string(name)) + ".scope";
      out = (base == "/" ? "" : base) + "/" + unit;
    }
  }
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  if (!is_clean_relative_path(out.substr(1))) return std::nullopt;
  return out;
}

}  // namespace gnh
