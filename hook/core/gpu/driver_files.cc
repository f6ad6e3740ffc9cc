#include "gpu/driver_files.h"

#include <charconv>
#include <cstdio>

#include "base/node_set.h"
#include "base/text.h"

namespace gnh {

namespace {

// Calls f(key, value) for each "Key: value" line, split on the first ':' like the toolkit does.
template <typename F>
void for_each_field(std::string_view text, F f) {
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    size_t colon = line.find(':');
    if (colon != std::string_view::npos) f(trim(line.substr(0, colon)), trim(line.substr(colon + 1)));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

template <typename T>
bool parse_number(std::string_view s, T* out, int base = 10) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out, base);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

std::optional<GpuInformation> parse_gpu_information(std::string_view text, std::string* why) {
  GpuInformation info;
  std::string minor_text;
  bool have_minor = false;
  for_each_field(text, [&](std::string_view key, std::string_view value) {
    if (key == "Model") info.model = value;
    else if (key == "GPU UUID") info.uuid = value;
    else if (key == "Bus Location") info.bus_location = value;
    else if (key == "Device Minor") { minor_text = value; have_minor = true; }
    else if (key == "GPU Excluded") info.excluded = value == "Yes";
  });
  if (!have_minor) {
    if (why) *why = "no 'Device Minor' line";
    return std::nullopt;
  }
  unsigned minor = 0;
  if (!parse_number(std::string_view(minor_text), &minor) || minor > 254) {
    if (why) *why = "'Device Minor' is '" + minor_text + "', not a GPU minor (0-254)";
    return std::nullopt;
  }
  info.minor = minor;
  return info;
}

std::optional<NumaStatus> parse_numa_status(std::string_view text, std::string* why) {
  NumaStatus st;
  bool have_node = false;
  std::string node_text;
  for_each_field(text, [&](std::string_view key, std::string_view value) {
    if (key == "Node") { node_text = value; have_node = true; }
    else if (key == "Status") st.status = value;
  });
  if (!have_node || st.status.empty()) {
    if (why) *why = have_node ? "no 'Status' line" : "no 'Node' line";
    return std::nullopt;
  }
  long long node = 0;
  if (!parse_number(std::string_view(node_text), &node) || node < -1 || node >= NodeSet::kMaxNodes) {
    if (why) *why = "'Node' is '" + node_text + "', not a node id";
    return std::nullopt;
  }
  if (node >= 0) st.node = static_cast<int>(node);
  return st;
}

std::optional<unsigned> parse_capability_minor(std::string_view text) {
  std::optional<unsigned> minor;
  for_each_field(text, [&](std::string_view key, std::string_view value) {
    unsigned m = 0;
    if (key == "DeviceFileMinor" && !minor && value.size() <= 7 && parse_number(value, &m)) minor = m;
  });
  return minor;
}

std::optional<int> parse_sysfs_numa_node(std::string_view text) {
  long long v = 0;
  if (!parse_number(trim(text), &v) || v < 0 || v >= NodeSet::kMaxNodes) return std::nullopt;
  return static_cast<int>(v);
}

std::optional<std::string> canonical_pci_address(std::string_view text) {
  text = trim(text);
  // Split "domain:bus:slot.fn" or "bus:slot.fn".
  size_t dot = text.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::string_view head = text.substr(0, dot), fn_s = text.substr(dot + 1);
  size_t c2 = head.rfind(':');
  if (c2 == std::string_view::npos) return std::nullopt;
  std::string_view slot_s = head.substr(c2 + 1);
  head = head.substr(0, c2);
  size_t c1 = head.rfind(':');
  std::string_view bus_s = c1 == std::string_view::npos ? head : head.substr(c1 + 1);
  std::string_view dom_s = c1 == std::string_view::npos ? std::string_view("0") : head.substr(0, c1);
  unsigned long dom = 0, bus = 0, slot = 0, fn = 0;
  if (dom_s.size() > 8 || bus_s.size() > 2 || slot_s.size() > 2 || fn_s.size() != 1) return std::nullopt;
  if (!parse_number(dom_s, &dom, 16) || !parse_number(bus_s, &bus, 16) ||
      !parse_number(slot_s, &slot, 16) || !parse_number(fn_s, &fn, 16))
    return std::nullopt;
  if (dom > 0xffff || slot > 0x1f || fn > 7) return std::nullopt;
  // "%04lx:%02lx:%02lx.%lx" by hand: snprintf was a third of reading eight GPUs' identities.
  std::string out = "0000:00:00.0";
  auto hex = [&](size_t at, unsigned long v, int digits) {
    for (int k = digits - 1; k >= 0; --k, v >>= 4) out[at + static_cast<size_t>(k)] = "0123456789abcdef"[v & 0xf];
  };
  hex(0, dom, 4);
  hex(5, bus, 2);
  hex(8, slot, 2);
  hex(11, fn, 1);
  return out;
}

}  // namespace gnh
