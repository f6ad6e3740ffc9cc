#include "host/oci/stdin_reader.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>

#include "base/error.h"

namespace gnh {

std::string read_all_stdin(size_t max_bytes, const Deadline& deadline) {
  std::string out;
  // One page: a state is a few hundred bytes, and each further page of stack is a page fault
  // (about 2 us in a VM) on every container start, ten times a read(2).
  char buf[4096];
  while (true) {
    struct pollfd p = {0, POLLIN, 0};
    int left = static_cast<int>(deadline.left().count());
    int r = ::poll(&p, 1, left);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) fail("cannot wait for the OCI state on stdin: " + errno_text(errno));
    if (r == 0) fail("no complete OCI state on stdin before the deadline (is stdin left open?)");
    ssize_t n = ::read(0, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      fail("cannot read the OCI state on stdin: " + errno_text(errno));
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > max_bytes)
      fail("the OCI state on stdin is larger than " + std::to_string(max_bytes) + " bytes");
    out.append(buf, static_cast<size_t>(n));
  }
  if (out.empty()) fail("no OCI state on stdin (run by a runtime as a hook, or pipe the state in)");
  return out;
}

}  // namespace gnh
