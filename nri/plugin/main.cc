// gpu-numa-nri: the NRI plugin. Connects to containerd's (or CRI-O's) NRI socket, or uses the
// connection the runtime handed it when the runtime started it from /opt/nri/plugins; adds the
// gpu-numa-hook at createRuntime to every container that may get GPUs; keeps GPU memory nodes in
// cpuset.mems updates. Reconnects with backoff (a pre-registered one whose connection drops dials
// the socket from then on) and records its registrations and drops for `check` and `status`.
#include <malloc.h>
#include <signal.h>
#include <cerrno>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <google/protobuf/stubs/common.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <thread>

#include "base/error.h"
#include "check/metrics.h"
#include "check/nri_metrics.h"
#include "check/nri_plugin_state.h"
#include "host/fs/atomic_file.h"
#include "host/fs/host_fs.h"
#include "host/fs/liveness_lock.h"
#include "host/check/nri_state_reader.h"
#include "host/config/config_loader.h"
#include "host/decide/decision_counter.h"
#include "host/log/event_log.h"
#include "plugin/bounded_call.h"
#include "plugin/connection.h"
#include "plugin/gpu_numa_plugin.h"
#include "plugin/preset_socket.h"
#include "plugin/metrics_address.h"
#include "plugin/metrics_server.h"

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

// The state file, rewritten on every change and every kNriHeartbeatSeconds. In fallback mode (a
// pre-registered plugin whose connection dropped, now dialing the socket) another instance may own
// it: the runtime, restarted, launched a new pre-registered one. Then this one steps aside.
class StateFile {
 public:
  StateFile(std::string path, gnh::NriPluginState s) : path_(std::move(path)), s_(std::move(s)) {}
  // Dial failed, or we are between connections.
  void disconnected(const std::string& error) {
    std::lock_guard<std::mutex> l(m_);
    set_connected_locked(false);
    s_.last_error = error;
    write_locked();
  }
  // The runtime completed our registration.
  void registered(const std::string& runtime) {
    std::lock_guard<std::mutex> l(m_);
    set_connected_locked(true);
    s_.runtime = runtime;
    s_.last_error.clear();
    ++s_.connects;
    s_.last_connect = s_.connected_since = unix_now();
    write_locked();
  }
  // A connection ended; `dropped` when we did not end it ourselves.
  void ended(const std::string& why, bool dropped) {
    std::lock_guard<std::mutex> l(m_);
    set_connected_locked(false);
    s_.runtime.clear();
    s_.last_error = why;
    s_.connected_since = 0;
    if (dropped) gnh::record_nri_drop(&s_, unix_now(), why);
    write_locked();
  }
  void set_mode(const std::string& mode, const std::string& socket) {
    std::lock_guard<std::mutex> l(m_);
    s_.mode = mode;
    s_.socket = socket;
    watch_owner_ = true;
  }
  void heartbeat() {
    std::lock_guard<std::mutex> l(m_);
    write_locked();
  }
  // The hook's probe; true when it changed what the file says (then it is rewritten at once).
  bool set_hook(const gnh::nri::HookBinary& h) {
    std::lock_guard<std::mutex> l(m_);
    if (s_.hook_path == h.path && s_.hook_present == h.usable && s_.hook_problem == h.problem) return false;
    s_.hook_path = h.path;
    s_.hook_present = h.usable;
    s_.hook_problem = h.problem;
    write_locked();
    return true;
  }

  // Where the container counts come from: read at each write, so a count reaches the file within
  // one heartbeat and a container call never waits for the file.
  void count_with(std::function<gnh::NriCallCounts()> counts) {
    std::lock_guard<std::mutex> l(m_);
    counts_ = std::move(counts);
  }

  // What the file would say now, for the metrics endpoint: a copy taken under the lock that every
  // writer holds, so a scrape never sees half an update and never waits on an NRI call.
  gnh::NriPluginState snapshot() {
    std::lock_guard<std::mutex> l(m_);
    gnh::NriPluginState s = s_;
    if (counts_) s.calls = counts_();
    return s;
  }

  // Another live gpu-numa-nri wrote the file since we last did (fallback mode only).
  long superseded_by() {
    std::lock_guard<std::mutex> l(m_);
    return superseded_by_;
  }

 private:
  void set_connected_locked(bool connected) {
    if (connected != s_.connected || s_.since.empty()) s_.since = gnh::utc_timestamp_now();
    s_.connected = connected;
  }
  void write_locked() {
    s_.heartbeat = unix_now();
    if (counts_) s_.calls = counts_();
    try {
      if (watch_owner_ && !superseded_by_) {
        if (auto text = gnh::HostFs("/").read(path_))
          if (auto other = gnh::parse_nri_state(*text))
            if (other->pid != s_.pid && other->pid > 0 && (::kill(pid_t(other->pid), 0) == 0 || errno == EPERM))
              superseded_by_ = other->pid;
      }
      if (superseded_by_) return;  // the newer instance owns the file now
      std::string dir = path_.substr(0, path_.rfind('/'));
      if (!dir.empty()) ::mkdir(dir.c_str(), 0755);
      gnh::write_file_atomically(path_, gnh::format_nri_state(s_), 0644, gnh::Durability::replaced);
    } catch (const gnh::Error& e) {
      std::fprintf(stderr, "gpu-numa-nri: cannot write the state file: %s\n", e.what());
    }
  }
  std::string path_;
  gnh::NriPluginState s_;
  std::function<gnh::NriCallCounts()> counts_;
  bool watch_owner_ = false;
  long superseded_by_ = 0;
  std::mutex m_;
};

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

}  // namespace

int main(int argc, char** argv) {
  std::string socket_path = "/var/run/nri/nri.sock";
  std::string name = "gpu-numa";
  std::string idx = "99";  // last: after any resource manager that sets cpu.mems (docs/nri.md)
  std::string config_path;
  std::string state_path = gnh::kNriStatePath;
  gnh::nri::HookSettings hook;
  std::string hook_config;
  CLI::App app{"gpu-numa-nri: the NRI plugin of gpu-numa-hook (adds the hook to GPU containers, keeps GPU "
               "memory nodes in cpuset.mems updates)"};
  app.add_option("--socket", socket_path, "NRI socket to connect to (external mode)");
  app.add_option("--name", name, "plugin name to register");
  app.add_option("--idx", idx, "plugin index to register (two digits: the order among plugins)");
  app.add_option("--config", config_path, "our configuration file (its [log] section is used)");
  app.add_option("--hook", hook.path, "host path of gpu-numa-hook that runc runs at createRuntime");
  app.add_option("--hook-config", hook_config, "configuration file the injected hook is given (--config)");
  app.add_option("--hook-timeout", hook.timeout_s, "the injected hook's timeout in seconds")->check(CLI::Range(1, 120));
  app.add_option("--host-root", hook.host_root, "where the node's / is mounted (in a container): the hook is checked, cgroups and the driver's GPU files are read there")
      ->check(CLI::ExistingDirectory);
  app.add_option("--state-file", state_path, "where the connection state is written for `check`");
  std::string metrics_address;
  app.add_option("--metrics-address", metrics_address,
                 "serve Prometheus metrics at http://HOST:PORT/metrics (HOST:PORT, [IPV6]:PORT or :PORT; off when unset)");
  bool version = false;
  app.add_flag("--version", version, "print the version");
  bool ready = false;
  app.add_flag("--ready", ready, "exit 0 when the running plugin is registered and its hook usable (a readiness probe)");
  CLI11_PARSE(app, argc, argv);
  if (version) {
    std::printf("gpu-numa-nri %s\n", GNH_VERSION);
    return 0;
  }
  if (ready) return report_readiness(state_path);
  std::optional<gnh::nri::MetricsAddress> metrics_at;
  if (!metrics_address.empty()) {
    std::string error;
    metrics_at = gnh::nri::parse_metrics_address(metrics_address, &error);
    if (!metrics_at) {
      std::fprintf(stderr, "gpu-numa-nri: %s\n", error.c_str());
      return 2;
    }
  }
  if (!hook_config.empty()) hook.extra_args = {"--config", hook_config};
  // Pre-registered: the runtime started us with the connection on an fd and our name and index.
  int preset_fd = -1;
  if (const char* fd = std::getenv("NRI_PLUGIN_SOCKET")) {
    std::string why;
    auto parsed = gnh::nri::parse_preset_socket(fd, &why);
    struct stat st {};
    if (parsed && (::fstat(*parsed, &st) != 0 || !S_ISSOCK(st.st_mode))) why = "is not an open socket here";
    if (!why.empty()) {
      std::fprintf(stderr, "gpu-numa-nri: NRI_PLUGIN_SOCKET='%.40s' %s (a runtime starting a pre-registered plugin "
                   "passes the connection's descriptor there; unset it to dial the runtime's socket)\n", fd, why.c_str());
      return 2;
    }
    preset_fd = *parsed;
    if (const char* n = std::getenv("NRI_PLUGIN_NAME")) name = n;
    if (const char* i = std::getenv("NRI_PLUGIN_IDX")) idx = i;
  }
  if (idx.size() != 2 || !std::isdigit(static_cast<unsigned char>(idx[0])) ||
      !std::isdigit(static_cast<unsigned char>(idx[1]))) {
    std::fprintf(stderr, "gpu-numa-nri: --idx '%s' is not two digits (00-99)\n", idx.c_str());
    return 2;
  }

  gnh::Config cfg;
  try {
    cfg = gnh::load_config(gnh::HostFs("/"), config_path.empty() ? std::nullopt : std::optional<std::string>(config_path));
  } catch (const gnh::Error& e) {
    std::fprintf(stderr, "gpu-numa-nri: %s\n", e.what());
    return 2;
  }
  gnh::EventLog event_log(cfg.log, gnh::HostFs("/"), "gpu-numa-nri");
  // The heartbeat thread logs too (the hook's presence): the log's sinks are single-threaded.
  std::mutex log_m;
  auto log = [&](gnh::LogRecord r) {
    std::lock_guard<std::mutex> l(log_m);
    // A container call past its deadline was answered "no adjustment"; what it decides later is
    // never applied, and its line must not read as if it were.
    if (gnh::nri::BoundedCall::in_abandoned_job())
      r.msg = "not applied (finished after the runtime's deadline; the runtime was answered with no adjustment): " + r.msg;
    event_log.write(r);
    // stderr is what `kubectl logs` shows; a log that fell back to stderr already put the line there.
    if (!event_log.fell_back())
      std::fprintf(stderr, "%s\n", gnh::format_text(r, gnh::utc_timestamp_now(), int(::getpid())).c_str());
  };
  // One record of the plugin's own (no container): its connection, its metrics endpoint.
  auto stage_log = [&](const char* stage, const char* level, const char* action, const std::string& msg) {
    gnh::LogRecord r;
    r.program = "gpu-numa-nri";
    r.level = level;
    r.stage = stage;
    r.action = action;
    r.msg = msg;
    log(r);
  };
  auto conn_log = [&](const char* level, const char* action, const std::string& msg) {
    stage_log("nri-connect", level, action, msg);
  };

  // Fixed, not glibc's sliding threshold: the buffers of a multi-megabyte Synchronize are mapped
  // and unmapped, not left in the heap, so a busy node's state does not stay resident.
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
  // A payload that does not parse is answered and logged by us, in one line; protobuf's own
  // message for it (invalid UTF-8 in a string field) would be a second, unframed one on stderr.
  google::protobuf::SetLogHandler(nullptr);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);

  gnh::NriPluginState initial;
  initial.pid = long(::getpid());
  initial.pid_namespace = pid_namespace();
  initial.mode = preset_fd >= 0 ? "pre-registered" : "external";
  initial.socket = preset_fd >= 0 ? "" : socket_path;
  initial.hook_path = hook.path;
  initial.calls = gnh::NriCallCounts{};  // counted from the start: 0 until the first container
  StateFile state(state_path, initial);
  state.disconnected("starting");
  // Held for our whole life: `status` on the node, in another pid namespace than a DaemonSet's
  // plugin, tells a killed plugin from a live one by it at once, not after the heartbeat goes stale.
  gnh::LivenessLock liveness(state_path + ".lock");
  // The hook's presence: probed at start, on every heartbeat and before each injection; each
  // change logged once (an error while it is missing: GPU containers start unprotected).
  bool first_probe = true;
  std::string unchecked;  // why the last probe could not look ("" when it could)
  std::mutex hook_m;
  auto hook_seen = [&](const gnh::nri::HookBinary& h) {
    std::lock_guard<std::mutex> l(hook_m);
    if (h.unchecked != unchecked) {
      // Our own shortage, not the hook's: said once when it starts and once when it ends.
      gnh::LogRecord r;
      r.program = "gpu-numa-nri";
      r.level = h.unchecked.empty() ? "info" : "warn";
      r.stage = "nri-hook";
      r.action = h.unchecked.empty() ? "checked" : "unchecked";
      r.msg = h.unchecked.empty()
                  ? "the hook " + h.path + " can be checked again"
                  : "cannot check the hook " + h.path + " (" + h.unchecked + ", a shortage of this plugin's own, not of " +
                        "the hook): the last check's verdict stands (" +
                        (h.usable ? std::string("usable: GPU containers get the hook") : "not usable: " + h.problem) +
                        "); raise the plugin's open-file limit or memory if this lasts";
      log(r);
      unchecked = h.unchecked;
    }
    if (!state.set_hook(h) && !first_probe) return;
    if (!(first_probe && h.usable)) {
      gnh::LogRecord r;
      r.program = "gpu-numa-nri";
      r.level = h.usable ? "info" : "error";
      r.stage = "nri-hook";
      r.action = h.usable ? "present" : "missing";
      r.msg = h.usable ? "the hook " + h.path + " is usable again: GPU containers get it from now on"
                       : "the hook " + h.path + " is not usable on this node (" + h.problem +
                             "): GPU containers start WITHOUT it until it is back (the DaemonSet's init container "
                             "copies it; or point --hook at it)";
      log(r);
    }
    first_probe = false;
  };
  hook_seen(gnh::nri::probe_hook_binary(hook.path, hook.host_root));
  std::mutex hb_m;
  std::condition_variable hb_cv;
  std::thread heartbeat([&] {
    std::unique_lock<std::mutex> l(hb_m);
    while (!g_stop) {
      hb_cv.wait_for(l, std::chrono::seconds(gnh::kNriHeartbeatSeconds));
      if (!g_stop) {
        hook_seen(gnh::nri::probe_hook_binary(hook.path, hook.host_root));
        state.heartbeat();
      }
      if (state.superseded_by()) g_stop = true;  // the main loop says why and exits
    }
  });

  gnh::nri::GpuNumaPlugin plugin(cfg, hook, log, hook_seen);
  std::atomic<uint64_t> calls_failed{0};  // over every connection (Session::calls_failed is per connection)
  // One pool for every connection's container calls: a call stuck in a host read stays counted
  // across a reconnect; the next call gets a fresh worker, up to a bound (bounded_call.h).
  gnh::nri::BoundedCall bounded(int(gnh::kNriMaxStuckCalls));
  state.count_with([&] {
    return gnh::NriCallCounts{plugin.injections(), calls_failed.load(), static_cast<unsigned long long>(bounded.stuck())};
  });
  // The endpoint renders on its own thread from a snapshot of the state and the hook's decision
  // file; a port it cannot have is said once and the plugin protects the node without it.
  gnh::nri::MetricsServer metrics;
  if (metrics_at) {
    auto render = [&] {
      std::optional<gnh::DecisionCounts> decisions;
      try {
        decisions = gnh::read_decision_counts(gnh::HostFs("/"));
      } catch (const gnh::Error&) {
        // left out, as check leaves it out: a counter that cannot be read is not a 0
      }
      std::vector<gnh::Metric> m = gnh::nri_plugin_metrics(state.snapshot(), decisions, unix_now());
      m.push_back(gnh::build_info_metric(GNH_VERSION, GNH_REVISION));
      return gnh::render_metrics(m);
    };
    auto metrics_log = [&](const char* level, const char* action, const std::string& msg) {
      stage_log("nri-metrics", level, action, msg);
    };
    std::string error;
    if (metrics.start(*metrics_at, render, &error))
      metrics_log("info", "serving", "serving Prometheus metrics at http://" +
                                      gnh::nri::MetricsAddress{metrics_at->host, metrics.port()}.display() + "/metrics");
    else
      metrics_log("error", "unavailable", error + "; the plugin goes on without its metrics endpoint (check's textfile still has them)");
  }
  gnh::nri::ConnectionLimits limits;
  int backoff_ms = 500;
  std::string last_dial_error;
  int exit_code = 0;
  auto pause = [&] {
    for (int waited = 0; waited < backoff_ms && !g_stop; waited += 100) ::usleep(100 * 1000);
    backoff_ms = std::min(backoff_ms * 2, 10000);
  };
  while (!g_stop) {
    if (state.superseded_by()) break;
    std::string error;
    int fd = preset_fd >= 0 ? preset_fd : gnh::nri::dial_unix(socket_path, &error);
    if (fd < 0) {
      if (error != last_dial_error)
        conn_log("warn", "retry", error + "; retrying with backoff (up to 10 s) until it answers");
      last_dial_error = error;
      state.disconnected(error);
      pause();
      continue;
    }
    last_dial_error.clear();
    conn_log("info", "connecting",
             (preset_fd >= 0 ? "connected on fd " + std::to_string(fd) + " (pre-registered)" : "connected to " + socket_path) +
                 "; registering as " + idx + "-" + name);
    gnh::nri::Session session(&plugin, &bounded, &calls_failed);
    limits.registered_at_configure = preset_fd >= 0;
    auto end = gnh::nri::run_connection(fd, session, name, idx, limits, [&] {
      conn_log("info", "connected", "registered as " + idx + "-" + name + " with " + session.runtime() +
                                         ": GPU containers get the hook at createRuntime");
      state.registered(session.runtime());
      if (state.superseded_by()) g_stop = true;  // a newer pre-registered instance serves the runtime
    }, g_stop);
    // Our own stop is no drop; the runtime's Shutdown, a close, a protocol error or a timeout is.
    state.ended(end.why, !g_stop);
    const bool was_preset = preset_fd >= 0;
    preset_fd = -1;  // the runtime's fd is closed now; from here on we dial, like an external plugin
    std::string next = g_stop ? "exiting"
                       : was_preset
                           ? "the runtime launches a pre-registered plugin only at its own start, so this one keeps "
                             "protecting by dialing " + socket_path + " as an external plugin, with backoff"
                           : "reconnecting";
    conn_log(g_stop ? "info" : "warn", "disconnected",
             end.why + " (after " + std::to_string(session.calls_handled()) + " calls" +
                 (session.calls_failed() ? ", " + std::to_string(session.calls_failed()) + " answered with no adjustment" : "") +
                 "); " + next);
    if (was_preset) state.set_mode("pre-registered, dialing after its connection dropped", socket_path);
    if (end.was_registered) backoff_ms = 500;
    pause();
  }
  if (long other = state.superseded_by())
    conn_log("info", "exit", "another gpu-numa-nri (pid " + std::to_string(other) +
                                 ") now writes the state file: the runtime started a new pre-registered plugin; "
                                 "this one, dialing since its own connection dropped, exits");
  g_stop = true;
  hb_cv.notify_all();
  heartbeat.join();
  metrics.stop();
  state.ended("stopped", false);
  // A call still stuck in a host read holds the plugin: leave without running destructors under it.
  if (!bounded.wait_idle(std::chrono::milliseconds(0))) std::_Exit(exit_code);
  return exit_code;
}
