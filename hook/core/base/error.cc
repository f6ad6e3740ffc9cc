#include "base/error.h"

#include <cerrno>
#include <cstring>

namespace gnh {

Error::Error(const std::string& message, int err) : std::runtime_error(without_nul(message)), errno_(err) {}

bool Error::is_absent() const { return is_absent_errno(errno_); }

bool is_absent_errno(int err) { return err == ENOENT || err == ENOTDIR; }

std::string without_nul(const std::string& message) {
  if (message.find('\0') == std::string::npos) return message;
  std::string out;
  for (char c : message) out += c == '\0' ? std::string("\\x00") : std::string(1, c);
  return out;
}

void fail(const std::string& message, int err) { throw Failure(message, err); }

void fail_errno(const std::string& what, int err) { throw Failure(what + ": " + errno_text(err), err); }

std::string errno_text(int err) {
  const char* name = strerrorname_np(err);
  std::string text = name ? name : ("errno " + std::to_string(err));
  return text + " (" + strerror(err) + ")";
}

}  // namespace gnh
