// The container's init process, named by pid in the OCI state: checked before we act on it, and
// held so that a pid reused after it exits cannot redirect our writes to another process's cgroup.
#pragma once

namespace gnh {

class ContainerProcess {
 public:
  // Failure for a pid that cannot be a container's (<= 0, 1) or that does not exist. `pin` false
  // (a fixture host) checks the number only.
  ContainerProcess(int pid, bool pin);
  ~ContainerProcess();
  ContainerProcess(const ContainerProcess&) = delete;
  ContainerProcess& operator=(const ContainerProcess&) = delete;
  // Failure when it exited while the hook ran.
  void confirm_alive() const;

 private:
  int pid_;
  int fd_ = -1;
};

}  // namespace gnh
