#include "host/check/running_containers.h"

#include "base/error.h"
#include "cgroup/patch_plan.h"
#include "host/cgroup/patcher.h"
#include "host/check/crun_state_reader.h"
#include "host/runtime/runtime_update.h"
#include "host/systemd/systemd_durable.h"

namespace gnh {

// Docker keeps one root per runtime (/run/docker/runtime-<name>/<ns>), and containerd's runc shim
// passes its root to crun too when crun is its BinaryName: which runtime wrote a container is told
// by its record, not its root.
std::vector<std::string> runtime_state_roots(const HostFs& fs) {
  std::vector<std::string> roots = {"/run/runc", "/run/crun"};
  if (auto names = fs.list_dir("/run/docker"))
    for (const auto& n : *names)
      if (n.rfind("runtime-", 0) == 0)
        if (auto nss = fs.list_dir("/run/docker/" + n))
          for (const auto& ns : *nss) roots.push_back("/run/docker/" + n + "/" + ns);
  if (auto nss = fs.list_dir("/run/containerd/runc"))
    for (const auto& ns : *nss) roots.push_back("/run/containerd/runc/" + ns);
  return roots;
}

namespace {

// crun's status, else runc's state.json.
RunningContainer read_record(const HostFs& fs, const std::string& root, const std::string& id,
                             const std::string& mount, const Config& config) {
  if (auto c = read_crun_container(fs, root, id, mount, config)) return *c;
  return read_running_container(fs, root, id, config);
}

}  // namespace

std::vector<RunningGpuContainer> find_running_gpu_containers(const HostFs& fs, const Config& config,
                                                             const CpusetTree& tree) {
  std::vector<RunningGpuContainer> out;
  const std::string mount = tree.mount_point();
  for (const auto& root : runtime_state_roots(fs)) {
    auto ids = fs.list_dir(root);
    if (!ids) continue;
    for (const auto& id : *ids) {
      try {
        RunningContainer c = read_record(fs, root, id, mount, config);
        if (c.gpu_nodes.empty()) continue;
        if (c.cpuset_dir.compare(0, mount.size(), mount) != 0) continue;  // another hierarchy
        std::string rel = c.cpuset_dir.substr(mount.size());
        if (rel.empty()) rel = "/";
        if (rel.front() != '/' || tree.task_count(rel) <= 0) continue;  // stopped, or not ours to read
        out.push_back({id, root, rel, tree.read(rel).effective, c.gpu_nodes, c.gpus});
      } catch (const std::exception&) {
        continue;  // gone meanwhile, or a state we cannot read: not a finding
      }
    }
  }
  return out;
}

ContainerFix fix_lost_gpu_node(const HostFs& fs, const Config& config, const CpusetTree& tree,
                               const CpusetLocation& loc, const LostGpuNode& lost, std::vector<UnitUpdate>* told) {
  ContainerFix f{lost.id, lost.cgroup, lost.mems, lost.mems, false, false, ""};
  try {
    CpusetMems now = tree.read(lost.cgroup);
    f.before = f.after = now.effective;
    NodeSet add = lost.missing - now.effective;
    if (add.empty()) return f;  // fixed meanwhile (the stale-cgroup fix, a restart)
    if (!widening_keeps_positions(now.effective, now.effective | add)) {
      f.busy = true;
      f.after = now.effective | add;
      return f;
    }
    CpusetLocation where = loc;
    where.path = lost.cgroup;
    Deadline deadline(std::chrono::milliseconds(config.deadline_ms));
    PatchOutcome out = apply_patch(tree, lost.cgroup, add, fs.resolve(config.lock_path), deadline);
    if (!out.ok) {
      f.error = out.error;
      return f;
    }
    f.written = !out.steps.empty();
    f.after = out.effective_after;
    if (config.systemd_allowed_memory_nodes && systemd_owns_cgroups(fs, where))
      for (auto& u : tell_systemd(fs, tree, out.steps, fs.resolve(config.lock_path), deadline)) told->push_back(u);
  } catch (const std::exception& e) {
    f.error = e.what();
  }
  return f;
}

}  // namespace gnh
