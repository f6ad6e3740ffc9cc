// The NRI plugin's connection state, which the plugin (gpu-numa-nri) writes and `check` reads: a
// plugin that is not connected means containerd starts GPU containers without our hook (NRI is
// fail-open), so that must show in check and its metrics. Pure: the file's format and the verdict.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gnh {

constexpr const char* kNriStatePath = "/run/gpu-numa-hook/nri-state.json";
// The plugin rewrites its state this often; a file older than kNriStaleSeconds was left by a
// plugin that is gone (killed, its node rebooted into a fresh /run is handled by absence).
constexpr int kNriHeartbeatSeconds = 10;
constexpr int kNriStaleSeconds = 3 * kNriHeartbeatSeconds;
// "Registered and serving", not "connected at this instant": a plugin the runtime keeps dropping
// (it re-dials at once) is connected most of the time a reader looks, and protects nothing between.
// Dropped kNriFlapDrops times within kNriFlapWindowSeconds, it is not protecting; after any drop in
// that window, a new connection counts once it has lasted kNriSettleSeconds. One runtime restart
// costs one drop and kNriSettleSeconds of "not protected".
constexpr int kNriFlapWindowSeconds = 600;
constexpr int kNriFlapDrops = 3;
constexpr int kNriSettleSeconds = 30;
constexpr size_t kNriRecentDropsKept = 16;  // enough to see kNriFlapDrops; the file stays small

// What the plugin did with containers since it started (counters: a restart begins them again).
struct NriCallCounts {
  unsigned long long injections = 0;    // containers the hook was added to
  unsigned long long calls_failed = 0;  // container calls answered "no adjustment" by our own failure
  unsigned long long calls_stuck = 0;   // now: calls abandoned at their deadline, still in a host read
};

// How many abandoned calls gpu-numa-nri lets run at once (threads stuck in the kernel are not
// free); at that many, every later container call is refused until one returns.
constexpr unsigned long long kNriMaxStuckCalls = 4;

struct NriPluginState {
  bool connected = false;
  long pid = 0;
  std::string pid_namespace;  // readlink /proc/self/ns/pid ("pid:[4026531836]")
  std::string mode;           // "external" or "pre-registered"
  std::string socket;         // the socket dialled ("" in pre-registered mode)
  std::string runtime;        // "containerd v2.1.9", once configured
  std::string since;          // UTC time of the last change of `connected`
  long long heartbeat = 0;    // unix seconds of the last write
  std::string last_error;     // why the last connection ended or failed ("" none)
  // The hook the plugin injects, as the plugin sees it on the host: a GPU container it is missing
  // for starts without it (the plugin injects nothing rather than fail the pod).
  std::string hook_path;      // --hook ("" in files of older plugins)
  bool hook_present = true;   // exists and is executable (true in files of older plugins)
  std::string hook_problem;   // why not ("No such file or directory", "not executable")
  // Registrations and their ends over the plugin's life. A connect is a registration the runtime
  // completed (Synchronize answered); a drop is any connection of ours that ended without our
  // asking, registered or not (a split Synchronize refused ends before registration).
  unsigned long long connects = 0;
  unsigned long long drops = 0;
  long long last_connect = 0;       // unix seconds, 0 never
  long long connected_since = 0;    // unix seconds of the current registration, 0 when not connected
  long long last_drop = 0;          // unix seconds, 0 never
  std::string last_drop_reason;
  std::vector<long long> recent_drops;  // unix seconds, oldest first, at most kNriRecentDropsKept
  std::optional<NriCallCounts> calls;   // nullopt in files of older plugins
};

// Records a drop at `now` (keeps recent_drops within its bounds).
void record_nri_drop(NriPluginState* s, long long now, const std::string& reason);

std::string format_nri_state(const NriPluginState& s);
// nullopt when the text is not such a file (then check says so).
std::optional<NriPluginState> parse_nri_state(std::string_view text);

// What check knows about the plugin's process, beside the file.
struct NriPluginLiveness {
  bool same_pid_namespace = false;  // check runs in the plugin's pid namespace: pid_alive is meaningful
  bool pid_alive = false;
  long long now = 0;                // unix seconds
  // Whether a process holds the plugin's liveness lock (kNriStatePath + ".lock"), from any pid
  // namespace; nullopt when the plugin took none (an older one) or it cannot be read.
  std::optional<bool> lock_held = std::nullopt;
};

// nullopt when registered and serving; else one line for check ("NRI plugin not connected: ..." or
// "NRI plugin keeps being dropped: ...").
std::optional<std::string> nri_not_connected(const std::optional<NriPluginState>& state, const NriPluginLiveness& live);

// nullopt when no container call is stuck in a host read; else one line for status ("NRI plugin:
// N container call(s) stuck ..."), *all_refused set when no call is served until one returns.
std::optional<std::string> nri_calls_stuck(const std::optional<NriPluginState>& state, bool* all_refused);

// nullopt when the plugin's hook is there (or the state is unknown: nri_not_connected says so);
// else one line for check and status ("NRI plugin injects no hook: ...").
std::optional<std::string> nri_hook_missing(const std::optional<NriPluginState>& state);

}  // namespace gnh
