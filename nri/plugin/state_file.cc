#include "plugin/state_file.h"

#include <signal.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstdio>

#include "base/error.h"
#include "host/fs/atomic_file.h"
#include "host/fs/host_fs.h"
#include "report/log_record.h"
#include "plugin/hook_binary.h"

namespace gnh::nri {

namespace {

long long unix_now() {
  using namespace std::chrono;
  return duration_cast<seconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace

void StateFile::disconnected(const std::string& error) {
  std::lock_guard<std::mutex> l(m_);
  set_connected_locked(false);
  s_.last_error = error;
  write_locked();
}

void StateFile::registered(const std::string& runtime) {
  std::lock_guard<std::mutex> l(m_);
  set_connected_locked(true);
  s_.runtime = runtime;
  s_.last_error.clear();
  ++s_.connects;
  s_.last_connect = s_.connected_since = unix_now();
  write_locked();
}

void StateFile::ended(const std::string& why, bool dropped) {
  std::lock_guard<std::mutex> l(m_);
  set_connected_locked(false);
  s_.runtime.clear();
  s_.last_error = why;
  s_.connected_since = 0;
  if (dropped) record_nri_drop(&s_, unix_now(), why);
  write_locked();
}

void StateFile::set_mode(const std::string& mode, const std::string& socket) {
  std::lock_guard<std::mutex> l(m_);
  s_.mode = mode;
  s_.socket = socket;
  watch_owner_ = true;
}

void StateFile::heartbeat() {
  std::lock_guard<std::mutex> l(m_);
  write_locked();
}

bool StateFile::set_hook(const HookBinary& h) {
  std::lock_guard<std::mutex> l(m_);
  if (s_.hook_path == h.path && s_.hook_present == h.usable && s_.hook_problem == h.problem) return false;
  s_.hook_path = h.path;
  s_.hook_present = h.usable;
  s_.hook_problem = h.problem;
  write_locked();
  return true;
}

void StateFile::count_with(std::function<NriCallCounts()> counts) {
  std::lock_guard<std::mutex> l(m_);
  counts_ = std::move(counts);
}

NriPluginState StateFile::snapshot() {
  std::lock_guard<std::mutex> l(m_);
  NriPluginState s = s_;
  if (counts_) s.calls = counts_();
  return s;
}

long StateFile::superseded_by() {
  std::lock_guard<std::mutex> l(m_);
  return superseded_by_;
}

void StateFile::set_connected_locked(bool connected) {
  if (connected != s_.connected || s_.since.empty()) s_.since = utc_timestamp_now();
  s_.connected = connected;
}

void StateFile::write_locked() {
  s_.heartbeat = unix_now();
  if (counts_) s_.calls = counts_();
  try {
    if (watch_owner_ && !superseded_by_) {
      if (auto text = HostFs("/").read(path_))
        if (auto other = parse_nri_state(*text))
          if (other->pid != s_.pid && other->pid > 0 && (::kill(pid_t(other->pid), 0) == 0 || errno == EPERM))
            superseded_by_ = other->pid;
    }
    if (superseded_by_) return;  // the newer instance owns the file now
    std::string dir = path_.substr(0, path_.rfind('/'));
    if (!dir.empty()) ::mkdir(dir.c_str(), 0755);
    write_file_atomically(path_, format_nri_state(s_), 0644, Durability::replaced);
  } catch (const Error& e) {
    std::fprintf(stderr, "gpu-numa-nri: cannot write the state file: %s\n", e.what());
  }
}

}  // namespace gnh::nri
