#include "gpu/mig_layout.h"

#include <algorithm>

namespace gnh {

namespace {

std::string describe(const MigLayout& l) {
  if (l.empty()) return "none";
  std::string out;
  for (const auto& [gi, ci] : l) out += (out.empty() ? "" : ", ") + std::to_string(gi) + "/" + std::to_string(ci);
  return out;
}

}  // namespace

std::optional<unsigned> mig_instance_id(std::string_view name, std::string_view prefix) {
  if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::string_view digits = name.substr(prefix.size());
  if (digits.size() > 4 || (digits.size() > 1 && digits.front() == '0')) return std::nullopt;
  unsigned v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  return v;
}

std::vector<unsigned> gpu_instances_given(const std::vector<MigCapability>& driver, const std::vector<unsigned>& minors) {
  std::vector<unsigned> gis;
  for (const auto& c : driver)
    if (std::binary_search(minors.begin(), minors.end(), c.minor)) gis.push_back(c.gpu_instance_id);
  std::sort(gis.begin(), gis.end());
  gis.erase(std::unique(gis.begin(), gis.end()), gis.end());
  return gis;
}

MigLayout cached_mig_layout(const CachedGpu& gpu) {
  MigLayout l;
  l.reserve(gpu.mig_devices.size());
  for (const auto& m : gpu.mig_devices) l.emplace_back(m.gpu_instance_id, m.compute_instance_id);
  std::sort(l.begin(), l.end());
  return l;
}

std::string mig_layout_change(const MigLayout& cached, const MigLayout& live) {
  if (cached == live) return "";
  return "the NVML cache lists GPU instances " + describe(cached) + " (GI/CI), the driver lists " + describe(live) +
         " now";
}

}  // namespace gnh
