#include "cgroup/cgroup_location.h"

#include <algorithm>
#include <charconv>

#include "base/relative_path.h"

namespace gnh {

const char* to_string(CgroupVersion v) { return v == CgroupVersion::v1 ? "v1" : "v2"; }

namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    size_t p = s.find(sep);
    out.push_back(s.substr(0, p));
    if (p == std::string_view::npos) break;
    s.remove_prefix(p + 1);
  }
  return out;
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape_octal(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '3' &&
        s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string normalize_path(std::string_view p) {
  std::string out(p);
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  if (out.empty()) out = "/";
  return out;
}

}  // namespace

std::optional<std::vector<ProcCgroupLine>> parse_proc_cgroup(std::string_view text, std::string* why) {
  std::vector<ProcCgroupLine> out;
  for (std::string_view line : split(text, '\n')) {
    if (line.empty()) continue;
    size_t c1 = line.find(':');
    size_t c2 = c1 == std::string_view::npos ? c1 : line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) {
      if (why) *why = "line '" + std::string(line.substr(0, 80)) + "' is not ID:controllers:path";
      return std::nullopt;
    }
    ProcCgroupLine l;
    std::string_view id = line.substr(0, c1);
    auto [p, ec] = std::from_chars(id.data(), id.data() + id.size(), l.hierarchy_id);
    if (ec != std::errc() || p != id.data() + id.size()) {
      if (why) *why = "hierarchy id '" + std::string(id.substr(0, 20)) + "' is not a number";
      return std::nullopt;
    }
    std::string_view ctrls = line.substr(c1 + 1, c2 - c1 - 1);
    if (!ctrls.empty())
      for (auto c : split(ctrls, ',')) l.controllers.emplace_back(c);
    l.path = std::string(line.substr(c2 + 1));
    if (l.path.empty() || l.path.front() != '/') {
      if (why) *why = "cgroup path '" + l.path.substr(0, 80) + "' is not absolute";
      return std::nullopt;
    }
    out.push_back(std::move(l));
  }
  return out;
}

namespace {

// A mountinfo line's fields counted without building them: how many, where the "-" separator is
// (its index, npos when there is none) and the filesystem type after it.
struct MountLineShape {
  size_t fields = 0;
  size_t separator = std::string_view::npos;
  std::string_view fstype;
};

MountLineShape shape_of(std::string_view line) {
  MountLineShape s;
  for (size_t start = 0;;) {
    const size_t end = line.find(' ', start);
    const std::string_view field = line.substr(start, end - start);
    if (s.separator == std::string_view::npos && field == "-") s.separator = s.fields;
    else if (s.separator != std::string_view::npos && s.fields == s.separator + 1) s.fstype = field;
    ++s.fields;
    if (end == std::string_view::npos) return s;
    start = end + 1;
  }
}

}  // namespace

std::optional<std::vector<MountInfoLine>> parse_mountinfo(std::string_view text, std::string* why, MountFilter filter) {
  std::vector<MountInfoLine> out;
  for (size_t start = 0; start < text.size();) {
    const size_t nl = std::min(text.find('\n', start), text.size());
    const std::string_view line = text.substr(start, nl - start);
    start = nl + 1;
    if (line.empty()) continue;
    const MountLineShape shape = shape_of(line);
    if (shape.fields < 10 || shape.separator == std::string_view::npos || shape.separator < 6 ||
        shape.fields - shape.separator < 4) {
      if (why) *why = "line '" + std::string(line.substr(0, 80)) + "' is not a mountinfo line";
      return std::nullopt;
    }
    if (filter == MountFilter::cgroup && shape.fstype != "cgroup" && shape.fstype != "cgroup2") continue;
    const auto f = split(line, ' ');
    const auto sep = f.begin() + static_cast<long>(shape.separator);
    MountInfoLine m;
    m.device = std::string(f[2]);
    m.root = unescape_octal(f[3]);
    m.mount_point = unescape_octal(f[4]);
    m.fstype = std::string(sep[1]);
    m.source = unescape_octal(sep[2]);
    for (auto o : split(f[5], ',')) m.mount_options.emplace_back(o);
    for (auto o : split(sep[3], ',')) m.super_options.emplace_back(o);
    out.push_back(std::move(m));
  }
  return out;
}

std::string CpusetLocation::display() const {
  return path == "/" ? mount_point : mount_point + path;
}

std::optional<CpusetLocation> locate_cpuset(const std::vector<ProcCgroupLine>& proc,
                                            const std::vector<MountInfoLine>& mounts, std::string* why) {
  auto has = [](const std::vector<std::string>& v, std::string_view x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  const ProcCgroupLine* v1 = nullptr;
  const ProcCgroupLine* v2 = nullptr;
  for (const auto& l : proc) {
    if (l.hierarchy_id != 0 && has(l.controllers, "cpuset")) v1 = &l;
    if (l.hierarchy_id == 0 && l.controllers.empty()) v2 = &l;
  }
  const MountInfoLine* mount = nullptr;
  CpusetLocation loc;
  const ProcCgroupLine* line = nullptr;
  if (v1) {
    for (const auto& m : mounts)
      if (m.fstype == "cgroup" && has(m.super_options, "cpuset")) { mount = &m; break; }
    if (!mount) {
      if (why) *why = "the process is in a v1 cpuset cgroup but no cgroup mount with the cpuset option is in mountinfo";
      return std::nullopt;
    }
    loc.version = CgroupVersion::v1;
    // Mounted with -o noprefix (old Android/embedded setups; runc and crun handle it): the files
    // are "mems" and "effective_mems", without the "cpuset." prefix.
    loc.noprefix = has(mount->super_options, "noprefix");
    line = v1;
  } else if (v2) {
    for (const auto& m : mounts)
      if (m.fstype == "cgroup2") { mount = &m; break; }
    if (!mount) {
      if (why) *why = "the process is in a cgroup v2 hierarchy but no cgroup2 mount is in mountinfo";
      return std::nullopt;
    }
    loc.version = CgroupVersion::v2;
    line = v2;
  } else {
    if (why) *why = "no cpuset or unified hierarchy in the process's cgroup file";
    return std::nullopt;
  }
  std::string path = normalize_path(line->path);
  std::string root = normalize_path(mount->root);
  // A mount of a sub-tree (bind mount, cgroup namespace on the host side): paths are relative to it.
  if (root != "/" && (path == root || path.rfind(root + "/", 0) == 0)) path = normalize_path(path.substr(root.size()));
  if (!is_clean_relative_path(path.substr(1))) {
    if (why) *why = "cgroup path '" + path.substr(0, 200) + "' has '.', '..' or empty components";
    return std::nullopt;
  }
  loc.mount_point = normalize_path(mount->mount_point);
  loc.path = path;
  return loc;
}

std::vector<std::string> cgroup_chain(std::string_view path) {
  std::vector<std::string> out;
  std::string cur;
  for (auto part : split(path, '/')) {
    if (part.empty()) continue;
    cur += '/';
    cur += part;
    out.push_back(cur);
  }
  return out;
}

std::string cgroup_parent(std::string_view path) {
  size_t p = path.rfind('/');
  if (p == 0 || p == std::string_view::npos) return "/";
  return std::string(path.substr(0, p));
}

}  // namespace gnh
