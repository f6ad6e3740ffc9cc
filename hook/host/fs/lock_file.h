// The exclusive lock every patch and `check --fix` holds, so concurrent container starts under one
// stale parent cannot interleave their top-down writes. flock: a holder killed with SIGKILL
// releases it with its last descriptor, so a crash never blocks the next start.
#pragma once

#include <string>

#include "host/fs/deadline.h"

namespace gnh {

class LockFile {
 public:
  // Failure when the file cannot be opened (its errno kept) or the lock is not had before the
  // deadline (errno 0: another holder).
  LockFile(const std::string& path, const Deadline& deadline);
  ~LockFile();
  LockFile(const LockFile&) = delete;
  LockFile& operator=(const LockFile&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace gnh
