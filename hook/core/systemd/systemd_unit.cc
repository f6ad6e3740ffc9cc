#include "systemd/systemd_unit.h"

#include "systemd/allowed_nodes_probe.h"

namespace gnh {

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool unit_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ':' || c == '-' ||
         c == '_' || c == '.' || c == '\\';
}

}  // namespace

std::optional<std::string> systemd_unit_of_cgroup(std::string_view cgroup_path) {
  while (!cgroup_path.empty() && cgroup_path.back() == '/') cgroup_path.remove_suffix(1);
  size_t slash = cgroup_path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? cgroup_path : cgroup_path.substr(slash + 1);
  if (name.empty() || name.size() > 255) return std::nullopt;
  for (char c : name)
    if (!unit_name_char(c)) return std::nullopt;
  if (!ends_with(name, ".scope") && !ends_with(name, ".slice") && !ends_with(name, ".service")) return std::nullopt;
  // "-.slice" is the root slice: the cgroup root, never ours to restrict.
  if (name == "-.slice") return std::nullopt;
  return std::string(name);
}

std::vector<unsigned char> allowed_nodes_bitmask(const NodeSet& nodes) {
  std::vector<unsigned char> bytes;
  for (int id : nodes.ids()) {
    size_t byte = static_cast<size_t>(id) / 8;
    if (bytes.size() <= byte) bytes.resize(byte + 1, 0);
    bytes[byte] = static_cast<unsigned char>(bytes[byte] | (1u << (id % 8)));
  }
  return bytes;
}

std::string describe_unit_updates(const std::vector<UnitUpdate>& updates, bool* failed) {
  *failed = false;
  std::string ok, bad;
  for (const auto& u : updates) {
    std::string value = u.nodes.to_string();
    if (u.unsupported) {
      bad += "; " + no_allowed_memory_nodes_text(u.unit);
      continue;
    }
    if (u.error.empty()) {
      ok += (ok.empty() ? "" : ", ") + u.unit + "=" + value;
      continue;
    }
    *failed = true;
    bad += "; systemd not told for " + u.unit + " (" + u.error +
           "): its next daemon-reload can take the node away again; run: systemctl set-property --runtime " + u.unit +
           " AllowedMemoryNodes=" + value;
  }
  std::string s;
  if (!ok.empty()) s += " (systemd AllowedMemoryNodes: " + ok + ")";
  return s + bad;
}

}  // namespace gnh
