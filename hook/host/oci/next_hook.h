// Chained mode: run the next hook (normally nvidia-container-runtime-hook) first, with our argv
// and stdin, its output passed straight through.
#pragma once

#include <string>
#include <vector>

namespace gnh {

struct NextHookResult {
  int exit_code = 0;     // its exit status; 128+signal when killed by a signal
  bool timed_out = false;
  std::string error;     // we could not run it at all (not found, not executable)
};

NextHookResult run_next_hook(const std::string& path, const std::vector<std::string>& args,
                             const std::string& stdin_data, int timeout_ms);

}  // namespace gnh
