// `topology --follow`: keeps the NVML and identity caches current where no host service does (the
// DaemonSet's nvml-refresh container). Each tick reads only the driver's procfs (the GPUs and each
// one's MIG capability folders) and compares it with the NVML cache; NVML runs only when they
// differ: at start, after a re-partition by the MIG manager, a GPU added or gone, a driver reload.
// A refresh that fails is retried when the driver's listing changes, else after a back-off, so a
// node whose NVML cannot answer is not asked every tick.
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "base/error.h"
#include "base/exit_code.h"
#include "cli/commands.h"
#include "cli/tool_error.h"
#include "cli/topology_refresh.h"
#include "host/config/config_loader.h"
#include "host/driver/live_gpus_reader.h"
#include "host/driver/nvml_cache_reader.h"

namespace gnh {

namespace {

constexpr const char* kPrefix = "gpu-numa-hook topology --follow: ";
constexpr long kFirstBackoffMs = 10'000;
constexpr long kMaxBackoffMs = 600'000;

// Lines go to a pipe (kubectl logs): one flushed line per event, never held in a buffer.
template <typename... A>
void say(const char* format, A... args) {
  std::fputs(kPrefix, stdout);
  std::printf(format, args...);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

long now_ms() {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return long(t.tv_sec) * 1000 + t.tv_nsec / 1'000'000;
}

// Sleeps up to `ms`; true when SIGTERM or SIGINT came (blocked, so taken here and nowhere else).
bool stop_requested_within(const sigset_t& stop, long ms) {
  timespec t{ms / 1000, (ms % 1000) * 1'000'000};
  return ::sigtimedwait(&stop, nullptr, &t) > 0;
}

// Why the cache must be rewritten now; "" when it describes the host.
std::string refresh_reason(const HostFs& fs, const Config& config, const LiveGpus& live) {
  NvmlCacheLoad load = load_nvml_cache(fs, config.nvml.cache_path());
  if (!load.cache) return load.problem;
  return nvml_cache_refresh_reason(*load.cache, live);
}

}  // namespace

int run_topology_follow(const GlobalOptions& opts, long interval_ms) {
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  ::sigprocmask(SIG_BLOCK, &stop, nullptr);
  try {
    HostFs fs(opts.host_root.value_or("/"));
    const Config config = load_config(fs, opts.config_path);
    say("watching %s and %s every %ld ms; NVML runs only when they differ from %s", fs.resolve("/proc/driver/nvidia/gpus").c_str(),
        fs.resolve("/proc/driver/nvidia/capabilities").c_str(), interval_ms, fs.resolve(config.nvml.cache_path()).c_str());
    std::string failed_for;   // the driver's listing a refresh last failed on
    long retry_at = 0, backoff_ms = 0;
    bool said_current = false;
    do {
      std::string fingerprint;
      try {
        const LiveGpus live = read_live_gpus(fs);
        fingerprint = live_gpus_fingerprint(live);
        std::string reason = refresh_reason(fs, config, live);
        if (reason.empty()) {
          if (!said_current) say("current: %s describes every GPU and MIG layout the driver lists", fs.resolve(config.nvml.cache_path()).c_str());
          said_current = true, failed_for.clear(), backoff_ms = 0;
          continue;
        }
        said_current = false;
        if (fingerprint == failed_for && now_ms() < retry_at) continue;
        say("refreshing: %s", reason.c_str());
        refresh_caches(fs, config, std::nullopt);
        // What was written must now match, or the next tick would run NVML again at once.
        if (std::string still = refresh_reason(fs, config, read_live_gpus(fs)); !still.empty())
          fail("the NVML cache just written does not match the driver's listing: " + still);
        say("refreshed: the hook applies MIG instances' memory nodes from the new cache");
        said_current = true, failed_for.clear(), backoff_ms = 0;
      } catch (const std::exception& e) {
        backoff_ms = std::min(kMaxBackoffMs, std::max(kFirstBackoffMs, backoff_ms * 2));
        failed_for = fingerprint, retry_at = now_ms() + backoff_ms;
        say("refresh failed: %s; GPUs in MIG mode stay not protected (status says so); retrying when the driver's "
            "GPUs or MIG layouts change, else in %ld s",
            e.what(), backoff_ms / 1000);
      }
    } while (!stop_requested_within(stop, interval_ms));
    say("stopping (signal); the caches stay as they are");
    return as_int(ExitCode::ok);
  } catch (const std::exception& e) {
    return report_tool_error(kPrefix, e);
  }
}

}  // namespace gnh
