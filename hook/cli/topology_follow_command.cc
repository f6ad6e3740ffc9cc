// `topology --follow`: keeps the NVML and identity caches current where no host service does (the
// DaemonSet's nvml-refresh container). Each tick reads only the driver's procfs (the GPUs and each
// one's MIG capability folders) and compares it with the NVML cache; NVML runs only when they
// differ: at start, after a re-partition by the MIG manager, a GPU added or gone, a driver reload.
// A start that needs the cache for a GPU in MIG state and finds it out of date asks for a tick at
// once and waits for the answer (gpu/nvml_refresh_protocol.h). A refresh that fails is retried
// when the driver's listing changes, else after a back-off, so a node whose NVML cannot answer is
// not asked on every tick or every start.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "base/error.h"
#include "base/exit_code.h"
#include "cli/commands.h"
#include "cli/tool_error.h"
#include "cli/topology_refresh.h"
#include "gpu/nvml_refresh_protocol.h"
#include "host/config/config_loader.h"
#include "host/driver/live_gpus_reader.h"
#include "host/driver/nvml_cache_reader.h"
#include "host/fs/atomic_file.h"
#include "host/fs/inotify_events.h"
#include "host/fs/liveness_lock.h"

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

class Follower {
 public:
  Follower(const HostFs& fs, const Config& config) : fs_(fs), config_(config) {}

  // One look at the driver, and a refresh when the cache does not describe it. Returns what a
  // waiting start is answered: "current", "refreshed" or "failed: <why>".
  std::string tick() {
    std::string fingerprint;
    try {
      const LiveGpus live = read_live_gpus(fs_);
      fingerprint = live_gpus_fingerprint(live);
      std::string reason = refresh_reason(live);
      if (reason.empty()) {
        if (!current_) say("current: %s describes every GPU and MIG layout the driver lists", cache_file().c_str());
        current_ = true, failed_for_.clear(), backoff_ms_ = 0;
        return "current";
      }
      current_ = false;
      if (fingerprint == failed_for_ && now_ms() < retry_at_) return "failed: " + last_error_ + "; " + retry_note();
      say("refreshing: %s", reason.c_str());
      refresh_caches(fs_, config_, std::nullopt);
      // What was written must now match, or the next tick would run NVML again at once.
      if (std::string still = refresh_reason(read_live_gpus(fs_)); !still.empty())
        fail("the NVML cache just written does not match the driver's listing: " + still);
      say("refreshed: the hook applies MIG instances' memory nodes from the new cache");
      current_ = true, failed_for_.clear(), backoff_ms_ = 0;
      return "refreshed";
    } catch (const std::exception& e) {
      backoff_ms_ = std::min(kMaxBackoffMs, std::max(kFirstBackoffMs, backoff_ms_ * 2));
      failed_for_ = fingerprint, retry_at_ = now_ms() + backoff_ms_, last_error_ = e.what();
      say("refresh failed: %s; GPUs in MIG mode stay not protected (status says so); %s", e.what(), retry_note().c_str());
      return "failed: " + last_error_;
    }
  }

 private:
  std::string cache_file() const { return fs_.resolve(config_.nvml.cache_path()); }
  std::string retry_note() const {
    return "retrying when the driver's GPUs or MIG layouts change, else in " + std::to_string(backoff_ms_ / 1000) + " s";
  }
  // Why the cache must be rewritten now; "" when it describes the host.
  std::string refresh_reason(const LiveGpus& live) const {
    NvmlCacheLoad load = load_nvml_cache(fs_, config_.nvml.cache_path());
    if (!load.cache) return load.problem;
    return nvml_cache_refresh_reason(*load.cache, live);
  }

  const HostFs& fs_;
  const Config& config_;
  bool current_ = false;
  std::string failed_for_;  // the driver's listing the last refresh failed on
  std::string last_error_;
  long retry_at_ = 0, backoff_ms_ = 0;
};

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
    const std::string dir = fs.resolve(kNvmlFollowerDir);
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) fail_errno("cannot create " + dir, errno);
    // Held for its life: starts ask only while some follower holds it.
    const LivenessLock lock(fs.resolve(kNvmlFollowerLockPath));
    int sig = ::signalfd(-1, &stop, SFD_CLOEXEC);
    int in = ::inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (sig < 0 || in < 0) fail_errno("signalfd or inotify_init1", errno);
    if (::inotify_add_watch(in, dir.c_str(), IN_CLOSE_WRITE) < 0) fail_errno("cannot watch " + dir, errno);
    say("watching %s and %s every %ld ms; NVML runs only when they differ from %s; starts ask through %s",
        fs.resolve("/proc/driver/nvidia/gpus").c_str(), fs.resolve("/proc/driver/nvidia/capabilities").c_str(),
        interval_ms, fs.resolve(config.nvml.cache_path()).c_str(), dir.c_str());
    if (!lock.held()) say("cannot take %s: starts will not ask, ticks alone keep the caches", fs.resolve(kNvmlFollowerLockPath).c_str());
    Follower follower(fs, config);
    bool requested = false, stopping = false;
    alignas(inotify_event) char buf[4096];
    while (!stopping) {
      std::string answer = follower.tick();
      if (requested) write_file_atomically(dir + "/" + kNvmlRefreshAnswerName, answer + "\n", 0644, Durability::replaced);
      requested = false;
      // Until the next tick, a stop or a start's request; the folder's other events (our own
      // writes among them) only wake the wait.
      for (const long next = now_ms() + interval_ms; !stopping && !requested;) {
        const long left = next - now_ms();
        if (left <= 0) break;
        pollfd p[2] = {{sig, POLLIN, 0}, {in, POLLIN, 0}};
        int n = ::poll(p, 2, int(left));
        if (n < 0 && errno != EINTR) fail_errno("poll", errno);
        if (n <= 0) continue;
        stopping = p[0].revents & POLLIN;
        if (p[1].revents & POLLIN)
          for (ssize_t r; (r = ::read(in, buf, sizeof buf)) > 0;)
            requested = requested || inotify_events_name(buf, r, kNvmlRefreshRequestName);
      }
    }
    say("stopping (signal); the caches stay as they are");
    return as_int(ExitCode::ok);
  } catch (const std::exception& e) {
    return report_tool_error(kPrefix, e);
  }
}

}  // namespace gnh
