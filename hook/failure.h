// The one error type below main: a message that already says what failed and where (file, cgroup,
// errno). Callers add context as it travels up; main turns it into exactly one line.
#pragma once

#include <stdexcept>
#include <string>

namespace gnh {

class Failure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// what() is a C string: a NUL byte from hostile text (a cgroup path, a JSON string) would cut the
// message short there, so NULs are written as "\x00".
std::string without_nul(const std::string& message);
[[noreturn]] inline void fail(const std::string& message) { throw Failure(without_nul(message)); }

// "EACCES (Permission denied)" for operators; the symbolic name is what they search for.
std::string errno_text(int err);

}  // namespace gnh
