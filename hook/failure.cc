#include "failure.h"

#include <cstring>

namespace gnh {

std::string without_nul(const std::string& message) {
  if (message.find('\0') == std::string::npos) return message;
  std::string out;
  for (char c : message) out += c == '\0' ? std::string("\\x00") : std::string(1, c);
  return out;
}

std::string errno_text(int err) {
  const char* name = strerrorname_np(err);
  std::string text = name ? name : ("errno " + std::to_string(err));
  return text + " (" + strerror(err) + ")";
}

}  // namespace gnh
