#include "plugin/unprotected_watch.h"
#include "plugin/plugin_log.h"

#include <exception>

#include "host/cgroup/cgroup_locator.h"
#include "host/cgroup/cpuset_tree.h"
#include "host/check/container_specs.h"
#include "host/fs/host_fs.h"

namespace gnh::nri {

namespace {

LogRecord scan_record(const char* level, const char* action, std::string msg) {
  return plugin_record("nri-scan", level, action, std::move(msg));
}

}  // namespace

void UnprotectedWatch::scan() {
  RunningContainersScan found;
  try {
    HostFs fs(host_root_);
    CpusetTree tree(fs, locate_cpuset_hierarchy(fs));
    found = scan_running_containers(fs, tree);
  } catch (const std::exception& e) {
    std::string why = e.what();
    std::lock_guard<std::mutex> l(m_);
    count_.reset();
    if (why != last_failure_)
      log_(scan_record("warn", "unscanned",
                       "cannot read the running containers' specs under " + host_root_ + " (" + why +
                           "): gpu_numa_hook_unprotected_gpu_containers is left out of /metrics until a scan works; "
                           "GPU containers still get the hook"));
    last_failure_ = why;
    return;
  }
  std::lock_guard<std::mutex> l(m_);
  if (!last_failure_.empty())
    log_(scan_record("info", "scanned", "the running containers' specs can be read again under " + host_root_));
  last_failure_.clear();
  running_ = found.running;
  report(found.scan);
  count_ = found.scan.containers.size();
  if (!scanned_once_)  // later scans speak only of changes
    log_(scan_record("info", "scanned",
                     "first scan of what runs: " + std::to_string(found.running) + " running container(s), " +
                         std::to_string(*count_) + " GPU container(s) without the hook" +
                         (found.scan.unreadable.empty() ? std::string()
                                                        : ", " + std::to_string(found.scan.unreadable.size()) +
                                                              " spec(s) unreadable, not judged")));
  scanned_once_ = true;
}

void UnprotectedWatch::report(const UnprotectedScan& found) {
  std::set<std::string> now;
  for (const UnprotectedContainer& c : found.containers) {
    now.insert(c.id);
    if (reported_.count(c.id)) continue;
    LogRecord r = scan_record("error", "unprotected", unprotected_line(c));
    r.container = c.id;
    r.names = c.names;
    log_(std::move(r));
  }
  if (now.empty() && !reported_.empty())
    log_(scan_record("info", "protected", "no running GPU container is without the hook any more (the " +
                                              std::to_string(reported_.size()) +
                                              " found earlier stopped or were restarted with it)"));
  reported_ = std::move(now);
}

std::optional<size_t> UnprotectedWatch::count() {
  std::lock_guard<std::mutex> l(m_);
  return count_;
}

size_t UnprotectedWatch::running() {
  std::lock_guard<std::mutex> l(m_);
  return running_;
}

}  // namespace gnh::nri
