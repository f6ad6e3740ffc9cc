// A process's liveness that other pid namespaces can see: the holder keeps a shared flock on a
// file for its whole life, and the kernel drops it with the holder's last descriptor, however it
// ends (SIGKILL included). A reader in another pid namespace (the node's `status` about a plugin
// in a pod) cannot test the holder's pid, but it can test the lock.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "host/fs/host_fs.h"

namespace gnh {

class LivenessLock {
 public:
  // Creates the file (0644) if needed and takes the shared lock. Never fails: without the lock
  // (a read-only directory) readers fall back on what they used before, and held() says so.
  explicit LivenessLock(const std::string& path);
  ~LivenessLock();
  LivenessLock(const LivenessLock&) = delete;
  LivenessLock& operator=(const LivenessLock&) = delete;
  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// true when some process holds the lock at host_path (beneath fs's root), false when nobody does,
// nullopt when the file is not there or cannot be opened (a holder that never took one).
std::optional<bool> liveness_lock_held(const HostFs& fs, std::string_view host_path);

}  // namespace gnh
