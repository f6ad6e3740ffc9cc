// gpu-numa-nri as the runtime sees it: this program plays the runtime on a unix socket, starts the
// real plugin binary against it, answers RegisterPlugin, configures it, then sends N CreateContainer
// calls (every other one a GPU container) and times each round trip; the plugin's RSS is read from
// /proc idle (after Configure) and after the N calls. containerd allows a plugin 2 s per call.
//   build/bench/nri_bench [PLUGIN] [N]    (default build/gpu-numa-nri, 10000)
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "plugin/session.h"
#include "ttrpc.pb.h"

using namespace gnh::nri;
using Clock = std::chrono::steady_clock;

namespace {

void die(const std::string& m) {
  std::fprintf(stderr, "nri_bench: %s\n", m.c_str());
  std::exit(2);
}

struct Peer {
  int fd;
  MuxReader mux;
  TtrpcFrameReader calls, replies;
  // The next whole frame on `conn` (the other conn's frames are returned through *other).
  TtrpcFrame next(uint32_t* conn) {
    std::string e;
    char buf[65536];
    while (true) {
      if (auto f = replies.next(&e)) { *conn = 1; return *f; }  // plugin's answers to our calls (its conn 1)
      if (auto f = calls.next(&e)) { *conn = 2; return *f; }    // the plugin's own calls (conn 2)
      if (!e.empty()) die(e);
      ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
      if (n <= 0) die("the plugin closed the connection");
      mux.feed(std::string_view(buf, size_t(n)));
      while (auto c = mux.next(&e)) (c->conn == kPluginServiceConn ? replies : calls).feed(c->payload);
      if (!e.empty()) die(e);
    }
  }
  void send(const std::string& s) {
    if (::send(fd, s.data(), s.size(), MSG_NOSIGNAL) != ssize_t(s.size())) die("send failed");
  }
};

std::string call(uint32_t stream, const std::string& method, const std::string& payload) {
  gnh::ttrpc::Request req;
  req.set_service(kPluginService);
  req.set_method(method);
  req.set_payload(payload);
  return encode_mux(kPluginServiceConn, encode_ttrpc_frame(stream, TtrpcType::request, 0, req.SerializeAsString()));
}

long rss_kib(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

double pct(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(p * double(v.size())))];
}

}  // namespace

int main(int argc, char** argv) {
  std::string plugin = argc > 1 ? argv[1] : "build/gpu-numa-nri";
  int n = argc > 2 ? std::atoi(argv[2]) : 10000;
  char dir[] = "/tmp/gnh-nri-bench-XXXXXX";
  if (!::mkdtemp(dir)) die("mkdtemp");
  std::string sock = std::string(dir) + "/nri.sock", state = std::string(dir) + "/state.json",
              cfg = std::string(dir) + "/config.toml";
  std::ofstream(cfg) << "[log]\nfile = \"" << dir << "/log\"\n";
  int ls = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strcpy(a.sun_path, sock.c_str());
  if (::bind(ls, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 || ::listen(ls, 1) != 0) die("bind/listen");
  pid_t pid = ::fork();
  if (pid == 0) {
    int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 2);
    ::execl(plugin.c_str(), plugin.c_str(), "--socket", sock.c_str(), "--state-file", state.c_str(), "--config",
            cfg.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  Peer p{::accept(ls, nullptr, nullptr), {}, {}, {}};
  uint32_t conn = 0;
  TtrpcFrame reg = p.next(&conn);
  if (conn != 2) die("expected RegisterPlugin first");
  gnh::ttrpc::Response ok;
  ok.mutable_status();
  p.send(encode_mux(kRuntimeServiceConn, encode_ttrpc_frame(reg.stream_id, TtrpcType::response, 0, ok.SerializeAsString())));
  api::ConfigureRequest c;
  c.set_runtime_name("nri_bench");
  p.send(call(1, "Configure", c.SerializeAsString()));
  p.next(&conn);
  ::usleep(200 * 1000);  // idle RSS: after start-up and Configure
  long idle = rss_kib(pid);

  api::CreateContainerRequest gpu, plain;
  for (auto* r : {&gpu, &plain}) {
    r->mutable_pod()->set_name("pod");
    r->mutable_container()->set_name("ctr");
    for (int i = 0; i < 20; ++i) r->mutable_container()->add_env("VAR" + std::to_string(i) + "=value");
  }
  gpu.mutable_container()->add_env("NVIDIA_VISIBLE_DEVICES=0");
  std::vector<double> t_gpu, t_plain;
  uint32_t stream = 3;
  for (int i = 0; i < n; ++i) {
    auto& r = i % 2 ? plain : gpu;
    r.mutable_container()->set_id("c" + std::to_string(i));
    std::string bytes = call(stream, "CreateContainer", r.SerializeAsString());
    auto t0 = Clock::now();
    p.send(bytes);
    TtrpcFrame f = p.next(&conn);
    double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    if (f.stream_id != stream) die("answer on the wrong stream");
    (i % 2 ? t_plain : t_gpu).push_back(us);
    stream += 2;
  }
  long after = rss_kib(pid);
  ::kill(pid, SIGTERM);
  ::waitpid(pid, nullptr, 0);
  std::printf("gpu-numa-nri over its NRI connection, %d CreateContainer calls (round trip, this process to the plugin and back)\n", n);
  std::printf("  GPU container (hook added):  median %.1f us  p99 %.1f us  max %.1f us\n", pct(t_gpu, 0.5), pct(t_gpu, 0.99),
              pct(t_gpu, 1.0));
  std::printf("  container without GPUs:      median %.1f us  p99 %.1f us  max %.1f us\n", pct(t_plain, 0.5),
              pct(t_plain, 0.99), pct(t_plain, 1.0));
  std::printf("  containerd's per-call limit: 2000000 us\n");
  std::printf("  RSS: idle %ld KiB, after %d calls %ld KiB\n", idle, n, after);
  std::string rm = std::string("rm -rf ") + dir;
  return std::system(rm.c_str()) == 0 ? 0 : 1;
}
