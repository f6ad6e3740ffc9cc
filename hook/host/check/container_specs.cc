#include "host/check/container_specs.h"

#include "host/check/running_containers.h"
#include "host/oci/spec_reader.h"
#include "runtime/crun_status.h"
#include "runtime/runc_state.h"

namespace gnh {

namespace {

bool plain_id(const std::string& id) {
  return !id.empty() && id.find('/') == std::string::npos && id != "." && id != "..";
}

// The container's cgroup relative to `tree`'s mount, "" when it has none there.
std::string relative_cgroup(const std::string& absolute, const std::string& mount) {
  if (mount == "/") return absolute;
  if (absolute.compare(0, mount.size(), mount) != 0) return "";
  std::string rel = absolute.substr(mount.size());
  if (rel.empty()) return "/";
  return rel.front() == '/' ? rel : "";
}

// crun's record (<id>/status: cgroup relative to the hierarchy), else runc's (<id>/state.json:
// an absolute cgroup directory). false when neither names a bundle and a cgroup.
bool read_record(const HostFs& fs, const std::string& root, const std::string& id, const std::string& mount,
                 std::string* runtime, std::string* bundle, std::string* cgroup) {
  if (auto text = fs.read(root + "/" + id + "/status", 4 * 1024 * 1024)) {
    CrunStatus s = parse_crun_status(*text);
    if (!s.bundle || !s.cgroup_path) return false;
    *runtime = "crun";
    *bundle = *s.bundle;
    *cgroup = *s.cgroup_path;
    return true;
  }
  auto text = fs.read(root + "/" + id + "/state.json", 4 * 1024 * 1024);
  if (!text) return false;
  RuncState s = parse_runc_state(*text);
  if (!s.bundle || !s.cpuset_dir) return false;
  *runtime = "runc";
  *bundle = *s.bundle;
  *cgroup = relative_cgroup(*s.cpuset_dir, mount);
  return !cgroup->empty();
}

}  // namespace

RunningContainersScan scan_running_containers(const HostFs& fs, const CpusetTree& tree) {
  RunningContainersScan out;
  for_each_running_container_spec(fs, tree, [&](ObservedContainer&& c) {
    ++out.running;
    std::vector<ObservedContainer> one;
    one.push_back(std::move(c));
    UnprotectedScan s = unprotected_gpu_containers(one);
    for (auto& u : s.containers) out.scan.containers.push_back(std::move(u));
    for (auto& u : s.unreadable) out.scan.unreadable.push_back(std::move(u));
  });
  return out;
}

size_t for_each_running_container_spec(const HostFs& fs, const CpusetTree& tree,
                                       const std::function<void(ObservedContainer&&)>& each) {
  size_t records = 0;
  const std::string mount = tree.mount_point();
  for (const auto& root : runtime_state_roots(fs)) {
    auto ids = fs.list_dir(root);
    if (!ids) continue;
    for (const auto& id : *ids) {
      if (!plain_id(id)) continue;
      ++records;
      try {
        std::string runtime, bundle, cgroup;
        if (!read_record(fs, root, id, mount, &runtime, &bundle, &cgroup)) continue;
        if (tree.task_count(cgroup) <= 0) continue;  // created, stopped, or not ours to read
        auto spec = fs.read(bundle + "/config.json", kMaxSpecBytes);
        if (!spec) continue;  // deleted meanwhile
        each({id, runtime, root, std::move(*spec)});
      } catch (const std::exception&) {
        continue;  // gone meanwhile, or a record we cannot read: as check's own walk
      }
    }
  }
  return records;
}

}  // namespace gnh
