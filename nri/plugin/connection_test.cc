// run_connection against a peer on a socketpair that misbehaves: the plugin's own timeouts end the
// connection with one line; no sleep decides an outcome here.
#include "plugin/connection.h"

#include <sys/socket.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <thread>

#include "ttrpc.pb.h"

using namespace gnh::nri;

namespace {

struct Quiet : PluginHandler {
  void configured(const api::ConfigureRequest&) override {}
  api::CreateContainerResponse create_container(const api::CreateContainerRequest&) override { return {}; }
  api::UpdateContainerResponse update_container(const api::UpdateContainerRequest&) override { return {}; }
  void call_failed(const std::string&) override {}
};

std::string registered_reply() {
  gnh::ttrpc::Response ok;
  ok.mutable_status();
  return encode_mux(kRuntimeServiceConn, encode_ttrpc_frame(1, TtrpcType::response, 0, ok.SerializeAsString()));
}

std::string configure_call(uint32_t stream) {
  gnh::ttrpc::Request req;
  req.set_service(kPluginService);
  req.set_method("Configure");
  return encode_mux(kPluginServiceConn, encode_ttrpc_frame(stream, TtrpcType::request, 0, req.SerializeAsString()));
}

// Runs the plugin's side on one end; `peer` acts on the other (and may close it).
ConnectionEnd run_against(const std::function<void(int)>& peer, ConnectionLimits limits = {}, int* registered = nullptr) {
  int sv[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
  Quiet h;
  Session s(&h);
  std::atomic<bool> stop{false};
  std::thread t([&] { peer(sv[1]); });
  auto end = run_connection(sv[0], s, "gpu-numa", "10", limits, [&] {
    if (registered) ++*registered;
  }, stop);
  t.join();
  ::close(sv[1]);
  return end;
}

void send_all(int fd, const std::string& s) { REQUIRE(::send(fd, s.data(), s.size(), MSG_NOSIGNAL) == ssize_t(s.size())); }

}  // namespace

TEST_CASE("connection: a runtime that never answers RegisterPlugin nor configures: dropped at the timeout") {
  ConnectionLimits l;
  l.configure_timeout_ms = 300;
  auto end = run_against([](int) {}, l);
  CHECK(end.why == "the runtime did not configure the plugin within 300 ms of RegisterPlugin (and never answered it)");
  CHECK_FALSE(end.was_configured);
}

TEST_CASE("connection: a runtime that stops in the middle of a frame: dropped, the part received named") {
  ConnectionLimits l;
  l.mid_frame_timeout_ms = 300;
  auto end = run_against([](int fd) {
    std::string c = configure_call(1);
    send_all(fd, registered_reply() + c.substr(0, 12));
  }, l);
  CHECK(end.why == "the runtime stopped in the middle of a frame (12 bytes of it received, nothing for 300 ms)");
}

TEST_CASE("connection: a runtime that closes in the middle of a frame") {
  auto end = run_against([](int fd) {
    send_all(fd, configure_call(1).substr(0, 9));
    ::shutdown(fd, SHUT_WR);
  });
  CHECK(end.why == "the runtime closed the connection in the middle of a frame (9 bytes of it received)");
}

TEST_CASE("connection: configured, then a reused stream id: protocol error, connection dropped") {
  auto end = run_against([](int fd) { send_all(fd, registered_reply() + configure_call(1) + configure_call(1)); });
  CHECK(end.was_configured);
  CHECK(end.why == "protocol error, connection dropped: ttrpc: request on stream 1 after stream 1 (stream ids must be "
                   "odd and increasing)");
}

TEST_CASE("connection: Shutdown ends it as asked") {
  auto end = run_against([](int fd) {
    gnh::ttrpc::Request req;
    req.set_service(kPluginService);
    req.set_method("Shutdown");
    send_all(fd, registered_reply() + configure_call(1) +
                     encode_mux(kPluginServiceConn, encode_ttrpc_frame(3, TtrpcType::request, 0, req.SerializeAsString())));
  });
  CHECK(end.shutdown);
  CHECK(end.why == "the runtime asked the plugin to shut down");
}

TEST_CASE("connection: registered once the last part of a split Synchronize is answered, not at Configure") {
  auto sync = [](uint32_t stream, bool more) {
    api::SynchronizeRequest sr;
    sr.set_more(more);
    gnh::ttrpc::Request req;
    req.set_service(kPluginService);
    req.set_method("Synchronize");
    req.set_payload(sr.SerializeAsString());
    return encode_mux(kPluginServiceConn, encode_ttrpc_frame(stream, TtrpcType::request, 0, req.SerializeAsString()));
  };
  int registered = 0;
  auto end = run_against([&](int fd) {
    send_all(fd, registered_reply() + configure_call(1) + sync(3, true));
    ::shutdown(fd, SHUT_WR);
  }, {}, &registered);
  CHECK(end.was_configured);
  CHECK_FALSE(end.was_registered);  // dropped between the parts: never counted as registered
  CHECK(registered == 0);
  end = run_against([&](int fd) {
    send_all(fd, registered_reply() + configure_call(1) + sync(3, true) + sync(5, true) + sync(7, false));
    ::shutdown(fd, SHUT_WR);
  }, {}, &registered);
  CHECK(end.was_registered);
  CHECK(registered == 1);
  CHECK(end.why == "the runtime closed the connection");
  // Pre-registered: NRI 0.6 never synchronizes a plugin it launched; Configure completes it.
  ConnectionLimits pre;
  pre.registered_at_configure = true;
  end = run_against([&](int fd) {
    send_all(fd, registered_reply() + configure_call(1));
    ::shutdown(fd, SHUT_WR);
  }, pre, &registered);
  CHECK(end.was_registered);
  CHECK(registered == 2);
}
