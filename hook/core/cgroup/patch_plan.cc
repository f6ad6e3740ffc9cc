#include "cgroup/patch_plan.h"

namespace gnh {

std::vector<PatchStep> plan_patch(CgroupVersion version, const std::vector<CgroupMemsSnapshot>& top_down,
                                  const NodeSet& add) {
  std::vector<PatchStep> steps;
  for (const auto& c : top_down) {
    if (add.is_subset_of(c.configured)) continue;
    if (version == CgroupVersion::v2 && (!c.has_files || c.configured.empty())) continue;
    steps.push_back({c.path, c.configured, c.configured | add});
  }
  return steps;
}

bool widening_keeps_positions(const NodeSet& before, const NodeSet& after) {
  auto ids = before.ids();
  if (ids.empty()) return true;
  for (int added : (after - before).ids())
    if (added < ids.back()) return false;
  return true;
}

}  // namespace gnh
