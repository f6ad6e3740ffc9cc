// A scripted systemd on a Unix socket for the hook's D-Bus client: one connection, the SASL
// exchange, then for each scripted reply one method call read (kept for the test to compare) and
// that reply written. The client's conversation is checked call by call, with no timing involved:
// each read blocks until the client has sent, and the connection closes after the last reply.
// One connection only: a second one (another unit) would wait for an answer that never comes.
#pragma once

#include <doctest/doctest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "systemd/dbus_message.h"

struct ScriptedSystemd {
  std::string path;
  int listener = -1;
  std::vector<std::vector<unsigned char>> calls;
  std::string auth;

  explicit ScriptedSystemd(const std::string& socket_path) : path(socket_path) {
    listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = {};
    a.sun_family = AF_UNIX;
    std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
    REQUIRE(::bind(listener, reinterpret_cast<struct sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::listen(listener, 1) == 0);
  }
  ~ScriptedSystemd() { ::close(listener); }

  void serve(const std::vector<std::vector<unsigned char>>& replies) {
    // A client that never connects fails the test's checks of `calls` instead of hanging it.
    struct pollfd p = {listener, POLLIN, 0};
    if (::poll(&p, 1, 30000) != 1) return;
    int c = ::accept(listener, nullptr, nullptr);
    if (c < 0) return;
    auto read_byte = [&](unsigned char* b) { return ::read(c, b, 1) == 1; };
    unsigned char b;
    while (read_byte(&b)) {  // the NUL, then "AUTH EXTERNAL ...\r\n"
      auth.push_back(static_cast<char>(b));
      if (auth.size() > 2 && auth.compare(auth.size() - 2, 2, "\r\n") == 0) break;
    }
    const char ok[] = "OK 0123456789abcdef0123456789abcdef\r\n";
    (void)!::write(c, ok, sizeof ok - 1);
    std::string begin;
    while (begin.size() < 7 && read_byte(&b)) begin.push_back(static_cast<char>(b));
    for (const auto& reply : replies) {
      std::vector<unsigned char> call(16);
      size_t got = 0;
      while (got < 16 && ::read(c, &call[got], 1) == 1) ++got;
      if (got < 16) break;
      auto size = gnh::dbus_message_size(call.data(), 1 << 20);
      if (!size) break;
      call.resize(*size);
      while (got < *size) {
        ssize_t n = ::read(c, &call[got], *size - got);
        if (n <= 0) break;
        got += static_cast<size_t>(n);
      }
      calls.push_back(call);
      (void)!::write(c, reply.data(), reply.size());
    }
    ::close(c);
  }
};
