// What the plugin says about the hook it injects, as the probes come in (at start, every heartbeat
// and before each injection, from any thread): each change of verdict once, an error while the hook
// is missing (GPU containers then start unprotected), and a probe that could not look for want of
// our own resources once when it starts and once when it ends, never as "the hook is gone".
#pragma once

#include <functional>
#include <mutex>
#include <string>

#include "plugin/hook_binary.h"
#include "report/log_record.h"

namespace gnh::nri {

class HookWatch {
 public:
  // `record` keeps the verdict (the state file) and says whether it changed; `log` writes a record.
  HookWatch(std::function<bool(const HookBinary&)> record, std::function<void(LogRecord)> log)
      : record_(std::move(record)), log_(std::move(log)) {}
  void seen(const HookBinary& h);

 private:
  std::function<bool(const HookBinary&)> record_;
  std::function<void(LogRecord)> log_;
  std::mutex m_;
  bool first_probe_ = true;
  std::string unchecked_;  // why the last probe could not look ("" when it could)
};

}  // namespace gnh::nri
