#include "plugin/metrics_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <atomic>
#include <string>

using namespace gnh::nri;

namespace {
int connect_to(unsigned short port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0);
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}
// The whole answer to one request (the server closes after answering).
std::string ask(unsigned short port, const std::string& request) {
  int fd = connect_to(port);
  REQUIRE(::send(fd, request.data(), request.size(), 0) == ssize_t(request.size()));
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) out.append(buf, size_t(n));
  ::close(fd);
  return out;
}
}  // namespace

TEST_CASE("metrics endpoint: GET /metrics answers the render function's text, other paths and methods do not") {
  std::atomic<int> renders{0};
  MetricsServer s;
  std::string err;
  REQUIRE(s.start({"127.0.0.1", 0}, [&] { ++renders; return std::string("gpu_numa_hook_nri_plugin_connected 1\n"); }, &err));
  REQUIRE(s.port() != 0);
  std::string r = ask(s.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(r.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
  CHECK(r.find("Content-Type: text/plain; version=0.0.4") != std::string::npos);
  CHECK(r.ends_with("\r\n\r\ngpu_numa_hook_nri_plugin_connected 1\n"));
  CHECK(renders == 1);
  CHECK(ask(s.port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n").rfind("HTTP/1.1 404", 0) == 0);
  CHECK(ask(s.port(), "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n").rfind("HTTP/1.1 405", 0) == 0);
  CHECK(renders == 1);
}

TEST_CASE("metrics endpoint: a client that sends nothing does not hold up the next scrape") {
  MetricsServer s;
  std::string err;
  REQUIRE(s.start({"127.0.0.1", 0}, [] { return std::string("x 1\n"); }, &err));
  int idle = connect_to(s.port());  // connected, silent
  CHECK(ask(s.port(), "GET /metrics HTTP/1.0\r\n\r\n").ends_with("\r\n\r\nx 1\n"));
  ::close(idle);
  s.stop();
  s.stop();  // twice is harmless (the destructor stops too)
}

TEST_CASE("metrics endpoint: a port in use is one error, naming the address") {
  MetricsServer first;
  std::string err;
  REQUIRE(first.start({"127.0.0.1", 0}, [] { return std::string(); }, &err));
  MetricsServer second;
  CHECK(!second.start({"127.0.0.1", first.port()}, [] { return std::string(); }, &err));
  CHECK(err.find("cannot bind 127.0.0.1:" + std::to_string(first.port()) + ": ") == 0);
  CHECK(err.find('\n') == std::string::npos);
}
