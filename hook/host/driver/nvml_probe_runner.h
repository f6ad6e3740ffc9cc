// Runs gpu-numa-nvml-probe for `topology --refresh`: by absolute path, with a minimal fixed
// environment (no LD_* or anything else of the caller's reaches the dynamic loader), stdin from
// /dev/null, its stdout captured up to a bound and its stderr passed through, killed at a timeout.
#pragma once

#include <string>
#include <vector>

namespace gnh {

struct ProbeRun {
  int exit_code = -1;   // its exit status; 128+signal when killed by a signal
  bool timed_out = false;
  std::string out;      // its stdout
  std::string error;    // we could not run it, or it wrote more than allowed
};

ProbeRun run_nvml_probe(const std::string& path, const std::vector<std::string>& args, int timeout_ms,
                        size_t max_output);

// gpu-numa-nvml-probe in the directory of the running gpu-numa-hook (/proc/self/exe): the package
// installs both in /usr/bin, the build puts both in build/.
std::string probe_beside_this_program();

}  // namespace gnh
