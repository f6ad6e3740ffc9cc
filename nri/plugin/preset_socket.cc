#include "plugin/preset_socket.h"

#include <charconv>

namespace gnh::nri {

std::optional<int> parse_preset_socket(std::string_view text, std::string* why) {
  int fd = -1;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, fd);
  // from_chars takes a leading '-'; a descriptor never has one.
  if (text.empty() || text.front() == '-' || ec != std::errc() || p != end) {
    *why = "is not a file descriptor number";
    return std::nullopt;
  }
  if (fd <= 2) {
    *why = "names standard input, output or error, not a socket";
    return std::nullopt;
  }
  return fd;
}

}  // namespace gnh::nri
