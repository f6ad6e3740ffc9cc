#include "plugin/preset_socket.h"

#include <doctest/doctest.h>

using gnh::nri::parse_preset_socket;

TEST_CASE("NRI_PLUGIN_SOCKET: a descriptor number, or why not") {
  std::string why;
  CHECK(parse_preset_socket("3", &why) == 3);
  CHECK(parse_preset_socket("17", &why) == 17);
  for (const char* bad : {"", "x", "3x", " 3", "3 ", "-3", "+3", "0x3", "99999999999"}) {
    CAPTURE(bad);
    why.clear();
    CHECK_FALSE(parse_preset_socket(bad, &why));
    CHECK(why == "is not a file descriptor number");
  }
  for (const char* stdio : {"0", "1", "2"}) {
    CAPTURE(stdio);
    CHECK_FALSE(parse_preset_socket(stdio, &why));
    CHECK(why == "names standard input, output or error, not a socket");
  }
}
