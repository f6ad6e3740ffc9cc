// The plugin's own look at what runs: every running container's real spec under the host root
// (host/check/container_specs.h, the scan `check` and `status` make), judged by the hook's own GPU
// test. A GPU container without our hook is unprotected whatever let it start: NVIDIA's NRI plugin
// gave it a GPU, a runtime mode never ran our hook, it started while this plugin was down. Scanned
// at start and every --scan-interval; the count goes to /metrics, each new finding to the log.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "check/unprotected_containers.h"
#include "report/log_record.h"

namespace gnh::nri {

class UnprotectedWatch {
 public:
  UnprotectedWatch(std::string host_root, std::function<void(LogRecord)> log)
      : host_root_(std::move(host_root)), log_(std::move(log)) {}
  // One scan; never throws. A scan that fails leaves the count unknown (its gauge out of /metrics,
  // as check leaves it out), said once per distinct reason.
  void scan();
  // The unprotected GPU containers of the last scan; nullopt before the first or after a failed one.
  std::optional<size_t> count();
  // The running containers the last scan looked at.
  size_t running();

 private:
  void report(const UnprotectedScan& found);

  std::string host_root_;
  std::function<void(LogRecord)> log_;
  std::mutex m_;  // the scan's thread writes, the endpoint's thread reads
  std::optional<size_t> count_;
  size_t running_ = 0;
  std::set<std::string> reported_;  // ids logged already: each finding said once while it runs
  std::string last_failure_;
  bool scanned_once_ = false;
};

}  // namespace gnh::nri
