// The one error type below main: a message that already says what failed and where (file, cgroup,
// field), plus the errno of the system call behind it (0 when there was none), so a caller can
// tell "gone" (ENOENT) from "cannot" (EACCES) without parsing text, as crun's libcrun_error_t
// carries status and message. Callers add context as it travels up; main turns it into one line.
#pragma once

#include <stdexcept>
#include <string>

namespace gnh {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, int err = 0);
  // The errno behind the failure; 0 for a failure that is not a system call's (bad text, policy).
  int error_number() const { return errno_; }
  // ENOENT or ENOTDIR: the thing is not there (a container exited, a cgroup was removed).
  bool is_absent() const;

 private:
  int errno_;
};

// Failures of the host and of our own rules; oci::ParseError is the other Error.
class Failure : public Error {
 public:
  using Error::Error;
};

// what() is a C string: a NUL byte from hostile text (a cgroup path, a JSON string) would cut the
// message short there, so NULs are written as "\x00".
std::string without_nul(const std::string& message);
[[noreturn]] void fail(const std::string& message, int err = 0);
// "<what>: EACCES (Permission denied)", keeping err.
[[noreturn]] void fail_errno(const std::string& what, int err);

// "EACCES (Permission denied)" for operators; the symbolic name is what they search for.
std::string errno_text(int err);

bool is_absent_errno(int err);

}  // namespace gnh
