// BoundedCall and the session over it: a job that blocks is abandoned at its deadline and the call
// is answered; the outcome never depends on a sleep (the blocked job waits on a latch the test
// opens only after the answer came).
#include "plugin/bounded_call.h"

#include <doctest/doctest.h>

#include <atomic>
#include <future>
#include <thread>

#include "plugin/session.h"
#include "ttrpc.pb.h"

using namespace gnh::nri;
using namespace std::chrono_literals;

TEST_CASE("bounded call: a job that returns in time is done, and what it wrote is visible") {
  BoundedCall b;
  int x = 0;
  bool abandoned = true;
  CHECK(b.run([&] { x = 42; abandoned = BoundedCall::in_abandoned_job(); }, 10s) == BoundedCall::Outcome::done);
  CHECK_FALSE(abandoned);
  CHECK(x == 42);
  CHECK(b.run([&] { throw std::runtime_error("escapes nothing"); }, 10s) == BoundedCall::Outcome::done);
}

TEST_CASE("bounded call: a blocked job is abandoned at the deadline, the next call runs on a fresh worker") {
  BoundedCall b(2);
  std::promise<void> release;
  auto latch = release.get_future().share();
  auto ran_after = std::make_shared<std::atomic<bool>>(false);
  auto t0 = std::chrono::steady_clock::now();
  auto late = std::make_shared<std::atomic<int>>(0);  // 1: not abandoned while running, 2: abandoned
  CHECK_FALSE(BoundedCall::in_abandoned_job());
  CHECK(b.run([latch, late] {
    *late = BoundedCall::in_abandoned_job() ? 2 : 1;
    latch.wait();
    *late = BoundedCall::in_abandoned_job() ? 2 : 1;
  }, 100ms) == BoundedCall::Outcome::timed_out);
  CHECK(std::chrono::steady_clock::now() - t0 >= 100ms);
  CHECK(b.stuck() == 1);
  // one hung host read does not turn the next container away
  bool abandoned = true;
  CHECK(b.run([ran_after, &abandoned] { *ran_after = true; abandoned = BoundedCall::in_abandoned_job(); }, 10s) ==
        BoundedCall::Outcome::done);
  CHECK(ran_after->load());
  CHECK_FALSE(abandoned);
  CHECK(b.stuck() == 1);
  release.set_value();
  // the abandoned job ends on its own worker and is counted out
  for (int i = 0; i < 1000 && b.stuck() != 0; ++i) std::this_thread::sleep_for(10ms);
  CHECK(b.stuck() == 0);
  CHECK(late->load() == 2);  // what it logs after the deadline can say it was not used
}

TEST_CASE("bounded call: past max_stuck abandoned jobs, calls are refused until one ends") {
  BoundedCall b(2);
  std::promise<void> release;
  auto latch = release.get_future().share();
  for (int i = 0; i < 2; ++i)
    CHECK(b.run([latch] { latch.wait(); }, 50ms) == BoundedCall::Outcome::timed_out);
  CHECK(b.stuck() == 2);
  auto ran = std::make_shared<std::atomic<bool>>(false);
  CHECK(b.run([ran] { *ran = true; }, 10s) == BoundedCall::Outcome::busy);
  CHECK_FALSE(ran->load());
  release.set_value();
  for (int i = 0; i < 1000 && b.stuck() != 0; ++i) std::this_thread::sleep_for(10ms);
  REQUIRE(b.stuck() == 0);
  CHECK(b.run([ran] { *ran = true; }, 10s) == BoundedCall::Outcome::done);
  CHECK(ran->load());
}

TEST_CASE("bounded call: destroyed while its job is stuck, it returns at once (the worker is left to finish)") {
  std::promise<void> release;
  auto latch = release.get_future().share();
  auto finished = std::make_shared<std::promise<void>>();
  auto done = finished->get_future();
  {
    BoundedCall b;
    CHECK(b.run([latch, finished] { latch.wait(); finished->set_value(); }, 50ms) == BoundedCall::Outcome::timed_out);
  }  // no join here: the test would hang if the destructor waited
  release.set_value();
  CHECK(done.wait_for(10s) == std::future_status::ready);
}

TEST_CASE("bounded call: the deadline is 3/4 of the runtime's request timeout, 2 s when none is sent") {
  CHECK(call_deadline(0) == 1500ms);
  CHECK(call_deadline(2000) == 1500ms);
  CHECK(call_deadline(10000) == 7500ms);
  CHECK(call_deadline(20) == 50ms);
  CHECK(call_deadline(60000) == 10000ms);
  CHECK(call_deadline(-5) == 1500ms);
}

namespace {

// CreateContainer blocks until the test opens the latch, as a hanging driver file read would.
struct Blocking : PluginHandler {
  std::shared_future<void> latch;
  std::vector<std::string> failures;
  void configured(const api::ConfigureRequest&) override {}
  api::CreateContainerResponse create_container(const api::CreateContainerRequest&) override {
    latch.wait();
    api::CreateContainerResponse r;
    r.mutable_adjust()->mutable_hooks()->add_create_runtime()->set_path("/late");
    return r;
  }
  api::UpdateContainerResponse update_container(const api::UpdateContainerRequest&) override { return {}; }
  // A container named "no-gpu" is decided from the request; "odd" makes that decision throw.
  std::optional<api::CreateContainerResponse> create_from_request(const api::CreateContainerRequest& r) override {
    if (r.container().id() == "odd") throw std::runtime_error("cannot tell");
    if (r.container().id() != "no-gpu") return std::nullopt;
    return api::CreateContainerResponse();
  }
  std::optional<api::UpdateContainerResponse> update_from_request(const api::UpdateContainerRequest& r) override {
    if (r.container().id() != "no-gpu") return std::nullopt;
    return api::UpdateContainerResponse();
  }
  void call_failed(const std::string& what) override { failures.push_back(what); }
};

std::string request(uint32_t stream, const std::string& method, const std::string& payload) {
  gnh::ttrpc::Request req;
  req.set_service(kPluginService);
  req.set_method(method);
  req.set_payload(payload);
  return encode_mux(kPluginServiceConn, encode_ttrpc_frame(stream, TtrpcType::request, 0, req.SerializeAsString()));
}

gnh::ttrpc::Response last_answer(const std::string& out) {
  MuxReader mux;
  TtrpcFrameReader frames;
  std::string error;
  mux.feed(out);
  gnh::ttrpc::Response r;
  while (auto c = mux.next(&error)) {
    frames.feed(c->payload);
    while (auto f = frames.next(&error)) REQUIRE(r.ParseFromString(f->data));
  }
  return r;
}

}  // namespace

TEST_CASE("session: a CreateContainer whose handler hangs is answered within the deadline, no adjustment, logged") {
  std::promise<void> release;
  Blocking h;
  h.latch = release.get_future().share();
  BoundedCall bounded(1);  // one abandoned job at most: the second call finds the limit reached
  Session s(&h, &bounded);
  std::string out, error;
  api::ConfigureRequest cfg;
  cfg.set_request_timeout(200);  // deadline 150 ms
  REQUIRE(s.on_bytes(request(1, "Configure", cfg.SerializeAsString()), &out, &error));
  CHECK(s.deadline() == 150ms);
  api::CreateContainerRequest create;
  create.mutable_container()->set_id("c-hangs");
  create.mutable_pod()->set_namespace_("default");
  create.mutable_pod()->set_name("gpu-pod");
  out.clear();
  auto t0 = std::chrono::steady_clock::now();
  REQUIRE(s.on_bytes(request(3, "CreateContainer", create.SerializeAsString()), &out, &error));
  CHECK(std::chrono::steady_clock::now() - t0 < 200ms + 1s);  // generous: a busy machine, but never the hang
  auto r = last_answer(out);
  CHECK(r.status().code() == 0);
  api::CreateContainerResponse none;
  REQUIRE(none.ParseFromString(r.payload()));
  CHECK_FALSE(none.has_adjust());
  REQUIRE(h.failures.size() == 1);
  CHECK(h.failures[0] ==
        "CreateContainer for container c-hangs (pod default/gpu-pod) did not finish within 150 ms (the runtime's "
        "request timeout less a margin; a host file read hangs?); answered with no adjustment: the container starts "
        "without the GPU NUMA hook");
  // While the first is still stuck and no more may be, the next call is answered at once, not
  // queued behind it.
  out.clear();
  REQUIRE(s.on_bytes(request(5, "CreateContainer", create.SerializeAsString()), &out, &error));
  CHECK(last_answer(out).status().code() == 0);
  REQUIRE(h.failures.size() == 2);
  CHECK(h.failures[1].find("was not run: 1 earlier call(s) still stuck in host reads past their deadline") !=
        std::string::npos);
  CHECK(s.calls_failed() == 2);
  // Once the read returns, calls are served again.
  release.set_value();
  REQUIRE(bounded.wait_idle(10s));
  out.clear();
  REQUIRE(s.on_bytes(request(7, "CreateContainer", create.SerializeAsString()), &out, &error));
  api::CreateContainerResponse served;
  REQUIRE(served.ParseFromString(last_answer(out).payload()));
  CHECK(served.adjust().hooks().create_runtime(0).path() == "/late");
  CHECK(h.failures.size() == 2);
}

TEST_CASE("session: a call the request alone decides is answered on the connection's thread, even while the worker is stuck") {
  std::promise<void> release;
  Blocking h;
  h.latch = release.get_future().share();
  BoundedCall bounded(1);
  Session s(&h, &bounded);
  std::string out, error;
  api::ConfigureRequest cfg;
  cfg.set_request_timeout(200);
  REQUIRE(s.on_bytes(request(1, "Configure", cfg.SerializeAsString()), &out, &error));
  api::CreateContainerRequest gpu;
  gpu.mutable_container()->set_id("c-hangs");
  api::CreateContainerRequest plain;
  plain.mutable_container()->set_id("no-gpu");
  api::UpdateContainerRequest plain_update;
  plain_update.mutable_container()->set_id("no-gpu");
  // The GPU container's call hangs in a host read and is abandoned; the worker is then full.
  REQUIRE(s.on_bytes(request(3, "CreateContainer", gpu.SerializeAsString()), &out, &error));
  REQUIRE(h.failures.size() == 1);
  REQUIRE(bounded.stuck() == 1);
  // A container without a GPU needs no host read: answered, not refused as busy, nothing failed.
  for (uint32_t stream : {5u, 7u}) {
    out.clear();
    REQUIRE(s.on_bytes(stream == 5 ? request(stream, "CreateContainer", plain.SerializeAsString())
                                   : request(stream, "UpdateContainer", plain_update.SerializeAsString()),
                       &out, &error));
    CHECK(last_answer(out).status().code() == 0);
  }
  CHECK(h.failures.size() == 1);
  CHECK(s.calls_failed() == 1);
  // A decision from the request that throws is left to the worker, which is full: refused as busy.
  api::CreateContainerRequest odd;
  odd.mutable_container()->set_id("odd");
  out.clear();
  REQUIRE(s.on_bytes(request(9, "CreateContainer", odd.SerializeAsString()), &out, &error));
  REQUIRE(h.failures.size() == 2);
  CHECK(h.failures[1].find("CreateContainer for container odd was not run: 1 earlier call(s) still stuck") == 0);
  release.set_value();
  REQUIRE(bounded.wait_idle(10s));
}
