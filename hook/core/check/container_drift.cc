#include "check/container_drift.h"

namespace gnh {

std::vector<LostGpuNode> find_lost_gpu_nodes(const std::vector<RunningGpuContainer>& running, const NodeSet& gpu_online,
                                             ExplicitMemsPolicy policy) {
  std::vector<LostGpuNode> out;
  if (policy != ExplicitMemsPolicy::widen) return out;
  for (const auto& c : running) {
    NodeSet missing = (c.gpu_nodes & gpu_online) - c.mems;
    if (!missing.empty()) out.push_back({c.id, c.cgroup, c.gpus, c.mems, missing});
  }
  return out;
}

std::string lost_gpu_nodes_text(const std::vector<LostGpuNode>& lost) {
  std::string s = "running GPU containers that lost a GPU memory node: " + std::to_string(lost.size()) + "\n";
  for (const auto& l : lost)
    s += "  " + l.id + "  " + l.cgroup + "  mems " + l.mems.to_display() + "  missing " + l.missing.to_string() +
         "  gpus " + l.gpus + "\n";
  return s;
}

std::string container_fixes_text(const std::vector<ContainerFix>& fixes) {
  std::string s;
  for (const auto& f : fixes) {
    if (!f.error.empty())
      s += "  FAILED container " + f.id + " (" + f.cgroup + "): " + f.error + "\n";
    else if (f.busy)
      s += "  left alone container " + f.id + " (" + f.cgroup + "): widening " + f.before.to_display() + " to " +
           f.after.to_display() + " adds a node below one it has, and the kernel would remap its bound memory; restart it\n";
    else if (f.written)
      s += "  container " + f.id + " (" + f.cgroup + ")  " + f.before.to_display() + " -> " + f.after.to_display() + "\n";
  }
  return s;
}

}  // namespace gnh
