// What `check --fix` did, cgroup by cgroup. Plain data (host/check/check_fix.h produces it).
#pragma once

#include <string>
#include <vector>

#include "base/node_set.h"

namespace gnh {

struct FixResult {
  std::string path;
  NodeSet before;      // cpuset.mems read under the lock, just before writing
  NodeSet after;       // read back after writing (== before when nothing was needed)
  bool written = false;
  bool removed = false;  // the cgroup was removed while check ran (a container exited): skipped
  std::string error;     // not empty: this cgroup was not fixed (file, value, errno)
  long busy_tasks = 0;   // > 0: left alone, its running tasks' memory policies would be remapped
  NodeSet planned;       // with busy_tasks: what the fix would have written
};

struct FixOutcome {
  std::vector<FixResult> results;  // one per planned step, in plan order
  std::string error;               // the fix did not run at all (the lock)
  bool lock_unusable = false;      // ...because the lock file could not be opened or locked: the
                                   // tool failed (exit 2), unlike a lock another process holds

  size_t fixed() const;
  size_t failed() const;
  size_t removed() const;
  size_t busy() const;
};

}  // namespace gnh
