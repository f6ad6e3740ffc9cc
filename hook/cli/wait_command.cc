// `wait`: blocks a container service's start until the GPU memory nodes are online and in the
// root cpuset, so no container is created under a cpuset that lacks them (systemd ExecStartPre).
#include <chrono>
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <thread>

#include "base/error.h"
#include "base/exit_code.h"
#include "check/readiness.h"
#include "cli/commands.h"
#include "cli/config_problems.h"
#include "cli/tool_error.h"
#include "host/cgroup/cgroup_locator.h"
#include "host/config/config_loader.h"
#include "host/cgroup/cpuset_tree.h"
#include "host/driver/driver_reader.h"
#include "host/driver/nvml_cache_reader.h"

namespace gnh {

namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(250);
constexpr auto kProgressInterval = std::chrono::seconds(5);

Readiness poll(const HostFs& fs, const Config& config, std::string* nvml_problem) {
  Inventory inv = read_numa_inventory(fs, config.overrides, ReadErrors::fail);
  // GPUs in MIG mode: their instances' nodes, from the NVML cache (docs/platforms/mig.md).
  *nvml_problem = add_cached_mig_instances(fs, config.nvml.cache_path(), inv);
  // Located on every poll: early in boot the cgroup mounts may still be appearing.
  CpusetLocation loc = locate_cpuset_hierarchy(fs);
  CpusetTree tree(fs, loc);
  return assess_readiness(inv, {read_memory_nodes(fs), tree.root_mems(), read_possible_nodes(fs),
                               any_self_onlining_offline(inv.gpus) ? read_auto_online_blocks(fs) : std::string()});
}

}  // namespace

int run_wait(const GlobalOptions& opts, double timeout_seconds, bool json) {
  using Clock = std::chrono::steady_clock;
  // With --json stdout holds only the final object; progress goes to stderr.
  FILE* progress = json ? stderr : stdout;
  try {
    HostFs fs(opts.host_root.value_or("/"));
    Config config = load_config(fs, opts.config_path);
    warn_config_problems("gpu-numa-hook: wait: ", config);
    auto start = Clock::now();
    auto end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_seconds));
    auto next_progress = start;
    std::string nvml_problem, nvml_said, last_line;
    auto finish = [&](const Readiness& r, const char* result, FILE* to, const std::string& text, ExitCode code) {
      if (json) {
        double waited = std::chrono::duration<double>(Clock::now() - start).count();
        std::printf("%s\n", readiness_json(r, result, waited).c_str());
      } else {
        std::fprintf(to, "%s\n", text.c_str());
      }
      return as_int(code);
    };
    while (true) {
      Readiness r = poll(fs, config, &nvml_problem);
      if (!nvml_problem.empty() && nvml_problem != nvml_said) {
        std::fprintf(stderr, "gpu-numa-hook: wait: GPUs in MIG mode, their instances' memory nodes unknown: %s\n",
                     nvml_problem.c_str());
        nvml_said = nvml_problem;
      }
      std::string line = readiness_line(r);
      if (r.ready()) return finish(r, "ready", stdout, "gpu-numa-hook: wait: ready: " + line, ExitCode::ok);
      if (r.never())
        return finish(r, "not_waiting", stderr, "gpu-numa-hook: wait: not waiting: " + line, ExitCode::problems);
      auto now = Clock::now();
      if (now >= end) {
        char took[64];
        std::snprintf(took, sizeof took, "%g s", timeout_seconds);
        return finish(r, "timed_out", stderr, "gpu-numa-hook: wait: timed out after " + std::string(took) + ": " + line,
                      ExitCode::problems);
      }
      // A line at each change (a node came online, reached the kernel, the root cpuset) and every
      // 5 s while nothing changes, so a boot log shows where it stands.
      if (now >= next_progress || line != last_line) {
        std::fprintf(progress, "gpu-numa-hook: wait: %s\n", line.c_str());
        std::fflush(progress);
        next_progress = now + kProgressInterval;
        last_line = line;
      }
      std::this_thread::sleep_for(std::min<Clock::duration>(kPollInterval, end - now));
    }
  } catch (const std::exception& e) {
    return report_tool_error("gpu-numa-hook: wait: ", e);  // a broken wait must not look ready
  }
}

}  // namespace gnh
