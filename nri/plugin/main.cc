// gpu-numa-nri: the NRI plugin. Connects to containerd's (or CRI-O's) NRI socket, or uses the
// connection the runtime handed it when the runtime started it from /opt/nri/plugins; adds the
// gpu-numa-hook at createRuntime to every container that may get GPUs; keeps GPU memory nodes in
// cpuset.mems updates. Reconnects with backoff and records its registrations and drops for `check`
// and `status`; scans what runs for GPU containers without the hook. This file only composes the
// parts: plugin_options (the command line), plugin_log, state_file, hook_watch, periodic_task (the
// heartbeat, the scan), unprotected_watch, plugin_metrics with metrics_server, session_loop.
#include <malloc.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <google/protobuf/stubs/common.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "base/error.h"
#include "check/metrics.h"
#include "check/nri_plugin_state.h"
#include "host/check/nri_state_reader.h"
#include "host/config/config_loader.h"
#include "host/fs/host_fs.h"
#include "host/fs/liveness_lock.h"
#include "plugin/bounded_call.h"
#include "plugin/gpu_numa_plugin.h"
#include "plugin/hook_watch.h"
#include "plugin/metrics_server.h"
#include "plugin/periodic_task.h"
#include "plugin/plugin_log.h"
#include "plugin/plugin_metrics.h"
#include "plugin/plugin_options.h"
#include "plugin/session_loop.h"
#include "plugin/state_file.h"
#include "plugin/unprotected_watch.h"

namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop = true; }

long long unix_now() {
  using namespace std::chrono;
  return duration_cast<seconds>(system_clock::now().time_since_epoch()).count();
}

std::string pid_namespace() {
  char buf[128];
  ssize_t n = ::readlink("/proc/self/ns/pid", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, size_t(n)) : std::string();
}

// --ready, the DaemonSet's readiness probe (an exec in the plugin's container, its pid namespace):
// ready means registered, serving, and injecting a hook that is there. One line either way.
int report_readiness(const std::string& state_path) {
  gnh::NriPluginCheck c = gnh::check_nri_plugin(gnh::HostFs("/"), state_path);
  if (c.connected && !c.hook_problem) {
    std::printf("gpu-numa-nri: ready: registered with %s and injecting the hook\n", c.runtime.c_str());
    return 0;
  }
  std::printf("gpu-numa-nri: not ready: %s\n",
              c.problem ? c.problem->c_str()
              : c.hook_problem ? c.hook_problem->c_str()
                               : ("no state file " + state_path + ": the plugin has not started").c_str());
  return 1;
}

bool is_open_socket(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
}

void handle_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

}  // namespace

int main(int argc, char** argv) {
  auto parsed = gnh::nri::parse_plugin_options(argc, argv, [](const char* n) { return std::getenv(n); }, is_open_socket);
  if (!parsed.options) {
    if (!parsed.error.empty()) std::fprintf(stderr, "%s\n", parsed.error.c_str());
    return parsed.exit_code;
  }
  const gnh::nri::PluginOptions& o = *parsed.options;
  if (o.version) {
    std::printf("gpu-numa-nri %s\n", GNH_VERSION);
    return 0;
  }
  if (o.ready) return report_readiness(o.state_path);

  gnh::Config cfg;
  try {
    cfg = gnh::load_config(gnh::HostFs("/"), o.config_path.empty() ? std::nullopt : std::optional<std::string>(o.config_path));
  } catch (const gnh::Error& e) {
    std::fprintf(stderr, "gpu-numa-nri: %s\n", e.what());
    return 2;
  }
  gnh::nri::PluginLog log(cfg.log, gnh::HostFs("/"));
  auto write_log = [&](gnh::LogRecord r) { log.write(std::move(r)); };

  // Fixed, not glibc's sliding threshold: the buffers of a multi-megabyte Synchronize are mapped
  // and unmapped, not left in the heap, so a busy node's state does not stay resident.
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
  // A payload that does not parse is answered and logged by us, in one line; protobuf's own
  // message for it (invalid UTF-8 in a string field) would be a second, unframed one on stderr.
  google::protobuf::SetLogHandler(nullptr);
  handle_signals();

  gnh::NriPluginState initial;
  initial.pid = long(::getpid());
  initial.pid_namespace = pid_namespace();
  initial.mode = o.preset_fd >= 0 ? "pre-registered" : "external";
  initial.socket = o.preset_fd >= 0 ? "" : o.socket_path;
  initial.hook_path = o.hook.path;
  initial.calls = gnh::NriCallCounts{};  // counted from the start: 0 until the first container
  gnh::nri::StateFile state(o.state_path, initial);
  state.disconnected("starting");
  // Held for our whole life: `status` on the node, in another pid namespace than a DaemonSet's
  // plugin, tells a killed plugin from a live one by it at once, not after the heartbeat goes stale.
  gnh::LivenessLock liveness(o.state_path + ".lock");

  gnh::nri::HookWatch hook_watch([&](const gnh::nri::HookBinary& h) { return state.set_hook(h); }, write_log);
  auto probe_hook = [&] { hook_watch.seen(gnh::nri::probe_hook_binary(o.hook.path, o.hook.host_root)); };
  probe_hook();
  gnh::nri::PeriodicTask heartbeat(std::chrono::seconds(gnh::kNriHeartbeatSeconds), [&] {
    probe_hook();
    state.heartbeat();
    if (state.superseded_by()) g_stop = true;  // the session loop says why and ends
  });

  gnh::nri::GpuNumaPlugin plugin(cfg, o.hook, write_log, [&](const gnh::nri::HookBinary& h) { hook_watch.seen(h); });
  std::atomic<uint64_t> calls_failed{0};  // over every connection (Session::calls_failed is per connection)
  // One pool for every connection's container calls: a call stuck in a host read stays counted
  // across a reconnect; the next call gets a fresh worker, up to a bound (bounded_call.h).
  gnh::nri::BoundedCall bounded(static_cast<int>(gnh::kNriMaxStuckCalls));
  state.count_with([&] {
    return gnh::NriCallCounts{plugin.injections(), calls_failed.load(), static_cast<unsigned long long>(bounded.stuck())};
  });

  // What runs, judged on its own thread (never on an NRI call's path): at start, then every interval.
  gnh::nri::UnprotectedWatch unprotected(o.hook.host_root, write_log);
  gnh::nri::PeriodicTask scan(o.scan_interval_s > 0 ? std::chrono::seconds(o.scan_interval_s) : std::chrono::hours(24 * 365),
                              [&] { unprotected.scan(); }, /*first_at_start=*/true);

  // The endpoint renders on its own thread from a snapshot of the state; a port it cannot have is
  // said once and the plugin protects the node without it.
  gnh::nri::MetricsServer metrics;
  if (o.metrics_at) {
    auto render = [&state, &unprotected, build_info = gnh::build_info_metric(GNH_VERSION, GNH_REVISION)] {
      return gnh::nri::render_plugin_metrics(state.snapshot(), gnh::HostFs("/"), unprotected.count(), unix_now(), build_info);
    };
    std::string error;
    if (metrics.start(*o.metrics_at, render, &error))
      log.plugin_event("nri-metrics", "info", "serving",
                       "serving Prometheus metrics at http://" +
                           gnh::nri::MetricsAddress{o.metrics_at->host, metrics.port()}.display() + "/metrics");
    else
      log.plugin_event("nri-metrics", "error", "unavailable",
                       error + "; the plugin goes on without its metrics endpoint (check's textfile still has them)");
  }

  gnh::nri::run_session_loop(o, plugin, bounded, calls_failed, state, log, g_stop);

  g_stop = true;
  heartbeat.stop();
  scan.stop();
  metrics.stop();
  state.ended("stopped", false);
  // A call still stuck in a host read holds the plugin: leave without running destructors under it.
  if (!bounded.wait_idle(std::chrono::milliseconds(0))) std::_Exit(0);
  return 0;
}
