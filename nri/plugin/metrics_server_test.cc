#include "plugin/metrics_server.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <sys/resource.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

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
// Everything the server sends until it closes, then the descriptor closed.
std::string read_to_close(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) out.append(buf, size_t(n));
  ::close(fd);
  return out;
}
// The whole answer to one request (the server closes after answering).
std::string ask(unsigned short port, const std::string& request) {
  int fd = connect_to(port);
  REQUIRE(::send(fd, request.data(), request.size(), 0) == ssize_t(request.size()));
  return read_to_close(fd);
}
// What comes back for a request the server may cut off while it is being sent: no SIGPIPE, no
// failure on a reset, just the bytes received ("" when the connection was simply closed).
std::string ask_hostile(unsigned short port, const std::string& request) {
  int fd = connect_to(port);
  (void)::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  return read_to_close(fd);
}
// Polls a condition the server reports; fails after 30 s so a broken cap cannot hang the suite.
template <typename F>
bool eventually(F condition) {
  for (int i = 0; i < 30000; ++i) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return condition();
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

TEST_CASE("metrics endpoint: accept failures for lack of descriptors back off, 50 ms doubling to 1 s") {
  using std::chrono::milliseconds;
  CHECK(accept_backoff(0) == milliseconds(0));
  CHECK(accept_backoff(1) == milliseconds(50));
  CHECK(accept_backoff(2) == milliseconds(100));
  CHECK(accept_backoff(5) == milliseconds(800));
  CHECK(accept_backoff(6) == milliseconds(1000));
  CHECK(accept_backoff(1000) == milliseconds(1000));
}

TEST_CASE("metrics endpoint: a flood of silent clients holds at most max_connections, and a scrape after it answers") {
  MetricsLimits limits;
  limits.max_connections = 4;
  limits.request_timeout = std::chrono::seconds(60);  // the flood stays until it leaves
  std::atomic<int> renders{0};
  MetricsServer s;
  std::string err;
  REQUIRE(s.start({"127.0.0.1", 0}, [&] { ++renders; return std::string("x 1\n"); }, &err, limits));
  std::vector<int> flood;
  for (int i = 0; i < 64; ++i) flood.push_back(connect_to(s.port()));  // the kernel's backlog takes them all
  REQUIRE(eventually([&] { return s.open_connections() == 4; }));
  CHECK(s.peak_connections() == 4);
  for (int fd : flood) ::close(fd);
  // each ends at its EOF, freeing its slot for the next in the backlog, which ends the same way
  REQUIRE(eventually([&] { return s.open_connections() == 0 && s.peak_connections() == 4; }));
  CHECK(ask(s.port(), "GET /metrics HTTP/1.0\r\n\r\n").ends_with("\r\n\r\nx 1\n"));
  CHECK(renders == 1);
  CHECK(s.peak_connections() == 4);
  CHECK(s.accept_failures() == 0);
}

TEST_CASE("metrics endpoint: a slow client holding the last slot is cut at the request timeout, the scrape then answers") {
  MetricsLimits limits;
  limits.max_connections = 1;
  limits.request_timeout = std::chrono::milliseconds(200);
  MetricsServer s;
  std::string err;
  REQUIRE(s.start({"127.0.0.1", 0}, [] { return std::string("x 1\n"); }, &err, limits));
  int slow = connect_to(s.port());
  REQUIRE(::send(slow, "GET /met", 8, MSG_NOSIGNAL) == 8);  // and nothing more
  REQUIRE(eventually([&] { return s.open_connections() == 1; }));
  CHECK(ask(s.port(), "GET /metrics HTTP/1.0\r\n\r\n").ends_with("\r\n\r\nx 1\n"));
  char c;
  CHECK(::recv(slow, &c, 1, 0) <= 0);  // cut off without an answer
  ::close(slow);
}

TEST_CASE("metrics endpoint: malformed HTTP and headers over the limit get a closed connection and nothing else") {
  std::atomic<int> renders{0};
  MetricsServer s;
  std::string err;
  REQUIRE(s.start({"127.0.0.1", 0}, [&] { ++renders; return std::string("x 1\n"); }, &err));
  CHECK(ask_hostile(s.port(), "NOT HTTP AT ALL\r\n\r\n") == "");
  CHECK(ask_hostile(s.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(8000, 'a') + "\r\n\r\n") == "");
  CHECK(ask_hostile(s.port(), "GET /metrics HTTP/1.1\r\nContent-Length: 999999\r\n\r\n") == "");
  CHECK(renders == 0);
  // and the endpoint still serves
  CHECK(ask(s.port(), "GET /metrics HTTP/1.0\r\n\r\n").ends_with("\r\n\r\nx 1\n"));
  REQUIRE(eventually([&] { return s.open_connections() == 0; }));
}

TEST_CASE("metrics endpoint: out of descriptors, the acceptor backs off instead of spinning, and serves once they are back") {
  MetricsServer s;
  std::string err;
  REQUIRE(s.start({"127.0.0.1", 0}, [] { return std::string("x 1\n"); }, &err));
  // The clients' sockets exist before the limit drops: connect() needs no new descriptor, the
  // server's accept() does.
  std::vector<int> clients;
  for (int i = 0; i < 8; ++i) clients.push_back(::socket(AF_INET, SOCK_STREAM, 0));
  int highest = 0;
  if (DIR* d = ::opendir("/proc/self/fd")) {
    while (dirent* e = ::readdir(d)) highest = std::max(highest, std::atoi(e->d_name));
    ::closedir(d);
  }
  rlimit saved{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &saved) == 0);
  rlimit tight = saved;
  tight.rlim_cur = static_cast<rlim_t>(highest) + 1;
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &tight) == 0);
  // the free numbers below the limit filled: the next accept fails with EMFILE
  std::vector<int> fillers;
  for (int fd; (fd = ::dup(2)) >= 0;) fillers.push_back(fd);
  REQUIRE(errno == EMFILE);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(s.port());
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int fd : clients) REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0);
  // Retried at once, the failures ran into the thousands in the time three backoffs take.
  const bool failed = eventually([&] { return s.accept_failures() >= 3; });
  const size_t seen = s.accept_failures();
  for (int fd : fillers) ::close(fd);
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &saved) == 0);
  REQUIRE(failed);
  CHECK(seen < 10);
  for (int fd : clients) ::close(fd);
  CHECK(ask(s.port(), "GET /metrics HTTP/1.0\r\n\r\n").ends_with("\r\n\r\nx 1\n"));
}
