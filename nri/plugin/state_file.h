// The plugin's state file (kNriStatePath), what `check`, `status` and --ready read: rewritten on
// every change and every heartbeat. In fallback mode (a pre-registered plugin whose connection
// dropped, now dialing the socket) another instance may own it: the runtime, restarted, launched a
// new pre-registered one. Then this one steps aside.
#pragma once

#include <functional>
#include <mutex>
#include <string>

#include "check/nri_plugin_state.h"

namespace gnh::nri {

struct HookBinary;

class StateFile {
 public:
  StateFile(std::string path, NriPluginState initial) : path_(std::move(path)), s_(std::move(initial)) {}
  // Dial failed, or we are between connections.
  void disconnected(const std::string& error);
  // The runtime completed our registration.
  void registered(const std::string& runtime);
  // A connection ended; `dropped` when we did not end it ourselves.
  void ended(const std::string& why, bool dropped);
  // Fallback mode: from now on another instance may take the file over.
  void set_mode(const std::string& mode, const std::string& socket);
  void heartbeat();
  // The hook's probe; true when it changed what the file says (then it is rewritten at once).
  bool set_hook(const HookBinary& h);
  // Where the container counts come from: read at each write, so a count reaches the file within
  // one heartbeat and a container call never waits for the file.
  void count_with(std::function<NriCallCounts()> counts);
  // What the file would say now, for the metrics endpoint: a copy taken under the lock that every
  // writer holds, so a scrape never sees half an update and never waits on an NRI call.
  NriPluginState snapshot();
  // Another live gpu-numa-nri wrote the file since we last did (fallback mode only); its pid.
  long superseded_by();

 private:
  void set_connected_locked(bool connected);
  void write_locked();

  std::string path_;
  NriPluginState s_;
  std::function<NriCallCounts()> counts_;
  bool watch_owner_ = false;
  long superseded_by_ = 0;
  std::mutex m_;
};

}  // namespace gnh::nri
