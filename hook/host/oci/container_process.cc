#include "host/oci/container_process.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "base/error.h"

namespace gnh {

ContainerProcess::ContainerProcess(int pid, bool pin) : pid_(pid) {
  if (pid <= 0) fail("the OCI state has no container pid", EINVAL);
  if (pid == 1) fail("the OCI state names pid 1, the host's init, not a container process", EINVAL);
  if (!pin) return;
  fd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd_ < 0 && errno == ESRCH) fail("container process " + std::to_string(pid) + " does not exist", ESRCH);
}

ContainerProcess::~ContainerProcess() {
  if (fd_ >= 0) ::close(fd_);
}

void ContainerProcess::confirm_alive() const {
  if (fd_ < 0) return;  // a fixture host, or a kernel without pidfd_open: best effort
  // Only ESRCH means it is gone; EPERM would be a permission problem, not an exit.
  if (::syscall(SYS_pidfd_send_signal, fd_, 0, nullptr, 0) != 0 && errno == ESRCH)
    fail("container process " + std::to_string(pid_) + " exited while the hook ran", ESRCH);
}

}  // namespace gnh
