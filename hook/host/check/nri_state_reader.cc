#include "host/check/nri_state_reader.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "check/nri_plugin_state.h"
#include "host/fs/liveness_lock.h"
#include "install/nri_config.h"

namespace gnh {

namespace {

std::string own_pid_namespace() {
  char buf[128];
  ssize_t n = ::readlink("/proc/self/ns/pid", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, size_t(n)) : std::string();
}

// Alive and still the plugin (a pid reused by another program is not).
bool plugin_alive(long pid) {
  if (pid <= 0 || (::kill(pid_t(pid), 0) != 0 && errno != EPERM)) return false;
  HostFs proc("/");
  auto comm = proc.read("/proc/" + std::to_string(pid) + "/comm");
  return comm && comm->rfind("gpu-numa-nri", 0) == 0;
}

// What `install --runtime nri|crio-nri` leaves at the default places: a node set up for the
// plugin. Without the plugin's state file such a node runs GPU containers without the hook.
std::string nri_setup_file(const HostFs& fs) {
  for (const std::string& f : {std::string("/etc/containerd/") + kContainerdNriDropin,
                               std::string("/etc/crio/crio.conf.d/") + kCrioNriDropin,
                               std::string("/opt/nri/plugins/") + kNriPreregisteredName})
    if (fs.read(f)) return f;
  return "";
}

}  // namespace

NriPluginCheck check_nri_plugin(const HostFs& fs, const std::string& state_path) {
  NriPluginCheck c;
  auto text = fs.read(state_path);
  if (!text) {
    const std::string setup = nri_setup_file(fs);
    if (setup.empty()) return c;  // never set up for NRI here: nothing to report
    c.applicable = true;
    c.problem = "NRI plugin not connected: this node is set up for it (" + fs.resolve(setup) +
                ") but gpu-numa-nri has never run here (no " + fs.resolve(state_path) + ")";
    return c;
  }
  c.applicable = true;
  auto state = parse_nri_state(*text);
  NriPluginLiveness live;
  live.now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  if (state && fs.is_real_root() && !state->pid_namespace.empty() && state->pid_namespace == own_pid_namespace()) {
    live.same_pid_namespace = true;
    live.pid_alive = plugin_alive(state->pid);
  }
  if (!state) {
    c.problem = "NRI plugin not connected: " + fs.resolve(state_path) + " is not the plugin's state file";
    return c;
  }
  live.lock_held = liveness_lock_held(fs, state_path + ".lock");
  c.problem = nri_not_connected(state, live);
  c.hook_problem = nri_hook_missing(state);
  c.stuck = nri_calls_stuck(state, &c.stuck_refuses_all);
  c.connected = !c.problem;
  c.connected_now = state->connected && live.now - state->heartbeat <= kNriStaleSeconds &&
                    !(live.same_pid_namespace && !live.pid_alive) && live.lock_held != false;
  if (c.connected || c.connected_now) c.runtime = state->runtime;
  c.connects = state->connects;
  c.drops = state->drops;
  c.last_drop_reason = state->last_drop_reason;
  c.calls = state->calls;
  return c;
}

}  // namespace gnh
