// gpu-numa-nri as the runtime sees it: this program plays the runtime on a unix socket, starts the
// real plugin binary against it, answers RegisterPlugin, configures it, synchronizes it with a busy
// node's state (12 pods with 420 KiB annotations and 100 containers, about 5 MiB, split in two
// messages as containerd 2.x splits it), then sends N CreateContainer and N UpdateContainer calls
// (every other one a GPU container) and times each round trip; the plugin's RSS is read from /proc
// idle (after Configure), after the Synchronize and after the calls. containerd allows a plugin
// 2 s per call.
//   build/bench/nri_bench [PLUGIN] [N] [nosync|PARTS]    (default build/gpu-numa-nri, 10000, 2 parts;
//   nosync: skip the Synchronize, for a plugin that predates split Synchronize; PARTS: a larger
//   node's state, PARTS messages of 2.5 MiB each, each under ttrpc's 4 MiB)
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

long status_kib(pid_t pid, const char* key) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(key, 0) == 0) return std::atol(line.c_str() + std::strlen(key));
  return -1;
}
long rss_kib(pid_t pid) { return status_kib(pid, "VmRSS:"); }

double pct(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(p * double(v.size())))];
}

}  // namespace

int main(int argc, char** argv) {
  std::string plugin = argc > 1 ? argv[1] : "build/gpu-numa-nri";
  int n = argc > 2 ? std::atoi(argv[2]) : 10000;
  const bool sync = !(argc > 3 && std::string(argv[3]) == "nosync");
  const int parts = sync && argc > 3 ? std::max(1, std::atoi(argv[3])) : 2;
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

  // A busy node's state, in parts (two by default): the answer to each but the last must say more=true.
  size_t sync_bytes = 0;
  double sync_us = 0;
  uint32_t stream = 3;
  for (int part = 0; sync && part < parts; ++part) {
    api::SynchronizeRequest sr;
    sr.set_more(part < parts - 1);
    for (int i = 0; i < 6; ++i) {
      auto* pod = sr.add_pods();
      pod->set_id("pod-" + std::to_string(part * 6 + i));
      pod->set_name("busy-" + std::to_string(part * 6 + i));
      (*pod->mutable_annotations())["example.com/blob"] = std::string(420 * 1024, 'x');
    }
    for (int i = 0; i < 50; ++i) {
      auto* ctr = sr.add_containers();
      ctr->set_id("sync-" + std::to_string(part * 50 + i));
      for (int e = 0; e < 20; ++e) ctr->add_env("VAR" + std::to_string(e) + "=value");
    }
    std::string bytes = call(stream, "Synchronize", sr.SerializeAsString());
    sync_bytes += bytes.size();
    auto t0 = Clock::now();
    p.send(bytes);
    TtrpcFrame f = p.next(&conn);
    sync_us += std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    gnh::ttrpc::Response resp;
    api::SynchronizeResponse sresp;
    if (!resp.ParseFromString(f.data) || resp.status().code() != 0 || !sresp.ParseFromString(resp.payload()) ||
        sresp.more() != sr.more())
      die("Synchronize part " + std::to_string(part + 1) + ": the answer's more is not the request's");
    stream += 2;
  }
  long after_sync = rss_kib(pid);

  api::CreateContainerRequest gpu, plain;
  for (auto* r : {&gpu, &plain}) {
    r->mutable_pod()->set_name("pod");
    r->mutable_container()->set_name("ctr");
    for (int i = 0; i < 20; ++i) r->mutable_container()->add_env("VAR" + std::to_string(i) + "=value");
  }
  gpu.mutable_container()->add_env("NVIDIA_VISIBLE_DEVICES=0");
  std::vector<double> t_gpu, t_plain, u_gpu, u_plain;
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
  // kubelet's Memory Manager moving each container to node 1.
  for (int i = 0; i < n; ++i) {
    auto& c = i % 2 ? plain : gpu;
    api::UpdateContainerRequest u;
    *u.mutable_pod() = c.pod();
    *u.mutable_container() = c.container();
    u.mutable_container()->set_id("c" + std::to_string(i));
    u.mutable_linux_resources()->mutable_cpu()->set_mems("1");
    std::string bytes = call(stream, "UpdateContainer", u.SerializeAsString());
    auto t0 = Clock::now();
    p.send(bytes);
    TtrpcFrame f = p.next(&conn);
    double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    if (f.stream_id != stream) die("answer on the wrong stream");
    (i % 2 ? u_plain : u_gpu).push_back(us);
    stream += 2;
  }
  long after = rss_kib(pid);
  long peak = status_kib(pid, "VmHWM:");
  ::kill(pid, SIGTERM);
  ::waitpid(pid, nullptr, 0);
  std::printf("gpu-numa-nri over its NRI connection, %d CreateContainer calls (round trip, this process to the plugin and back)\n", n);
  std::printf("  GPU container (hook added):  median %.1f us  p99 %.1f us  max %.1f us\n", pct(t_gpu, 0.5), pct(t_gpu, 0.99),
              pct(t_gpu, 1.0));
  std::printf("  container without GPUs:      median %.1f us  p99 %.1f us  max %.1f us\n", pct(t_plain, 0.5),
              pct(t_plain, 0.99), pct(t_plain, 1.0));
  std::printf("UpdateContainer, %d calls, mems 1 asked\n", n);
  std::printf("  GPU container (driver files looked up): median %.1f us  p99 %.1f us  max %.1f us\n", pct(u_gpu, 0.5),
              pct(u_gpu, 0.99), pct(u_gpu, 1.0));
  std::printf("  container without GPUs:                 median %.1f us  p99 %.1f us  max %.1f us\n", pct(u_plain, 0.5),
              pct(u_plain, 0.99), pct(u_plain, 1.0));
  std::printf("Synchronize, %d parts, %.1f MiB: %.0f us in all\n", sync ? parts : 0, double(sync_bytes) / (1 << 20), sync_us);
  std::printf("  containerd's per-call limit: 2000000 us\n");
  std::printf("  RSS: idle %ld KiB, after the Synchronize %ld KiB, after %d + %d calls %ld KiB, peak %ld KiB\n", idle,
              after_sync, n, n, after, peak);
  std::string rm = std::string("rm -rf ") + dir;
  return std::system(rm.c_str()) == 0 ? 0 : 1;
}
