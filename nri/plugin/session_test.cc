#include "plugin/session.h"

#include <doctest/doctest.h>

#include "ttrpc.pb.h"

using namespace gnh::nri;

namespace {

struct Recorder : PluginHandler {
  std::vector<std::string> calls;
  std::vector<std::string> failures;
  void configured(const api::ConfigureRequest& r) override { calls.push_back("configured " + r.runtime_name()); }
  api::CreateContainerResponse create_container(const api::CreateContainerRequest& r) override {
    calls.push_back("create " + r.container().id());
    api::CreateContainerResponse resp;
    resp.mutable_adjust()->mutable_hooks()->add_create_runtime()->set_path("/hook");
    return resp;
  }
  api::UpdateContainerResponse update_container(const api::UpdateContainerRequest& r) override {
    calls.push_back("update " + r.container().id());
    if (r.container().id() == "throws") throw std::runtime_error("boom");
    return {};
  }
  void container_created(const api::PodSandbox& pod, const api::Container& c) override {
    calls.push_back("created " + pod.name() + "/" + c.id());
    if (c.id() == "throws") throw std::runtime_error("boom");
  }
  void call_failed(const std::string& what) override { failures.push_back(what); }
};

std::string call(uint32_t stream, const std::string& method, const std::string& payload,
                 const std::string& service = kPluginService) {
  gnh::ttrpc::Request req;
  req.set_service(service);
  req.set_method(method);
  req.set_payload(payload);
  return encode_mux(kPluginServiceConn, encode_ttrpc_frame(stream, TtrpcType::request, 0, req.SerializeAsString()));
}

// The answers in `out`, decoded.
std::vector<std::pair<uint32_t, gnh::ttrpc::Response>> answers(const std::string& out) {
  MuxReader mux;
  TtrpcFrameReader frames;
  std::string error;
  mux.feed(out);
  std::vector<std::pair<uint32_t, gnh::ttrpc::Response>> got;
  while (auto c = mux.next(&error)) {
    REQUIRE(c->conn == kPluginServiceConn);
    frames.feed(c->payload);
    while (auto f = frames.next(&error)) {
      REQUIRE(f->type == uint8_t(TtrpcType::response));
      gnh::ttrpc::Response r;
      REQUIRE(r.ParseFromString(f->data));
      got.emplace_back(f->stream_id, r);
    }
  }
  REQUIRE(error.empty());
  return got;
}

}  // namespace

TEST_CASE("session: RegisterPlugin goes on conn 2, stream 1, to the Runtime service") {
  Recorder h;
  Session s(&h);
  std::string bytes = s.register_plugin("gpu-numa", "10");
  MuxReader mux;
  std::string error;
  mux.feed(bytes);
  auto c = mux.next(&error);
  REQUIRE(c);
  CHECK(c->conn == kRuntimeServiceConn);
  TtrpcFrameReader fr;
  fr.feed(c->payload);
  auto f = fr.next(&error);
  REQUIRE(f);
  CHECK(f->stream_id == 1);
  CHECK(f->type == 1);
  gnh::ttrpc::Request req;
  REQUIRE(req.ParseFromString(f->data));
  CHECK(req.service() == "nri.pkg.api.v1alpha1.Runtime");
  CHECK(req.method() == "RegisterPlugin");
  api::RegisterPluginRequest reg;
  REQUIRE(reg.ParseFromString(req.payload()));
  CHECK(reg.plugin_name() == "gpu-numa");
  CHECK(reg.plugin_idx() == "10");
  // NRI 0.12's RegisterPluginRequest.NRI_version is field 3 (tag 0x1a, length-delimited): checked
  // on the raw bytes, so a renumbered field in our .proto fails here, not in a runtime's log.
  CHECK(req.payload().find(std::string("\x1a\x07v0.12.0", 9)) != std::string::npos);
}

TEST_CASE("session: registration answer, Configure subscribes CreateContainer, PostCreateContainer and UpdateContainer, calls dispatched") {
  Recorder h;
  Session s(&h);
  s.register_plugin("gpu-numa", "10");
  std::string out, error;
  gnh::ttrpc::Response ok;
  ok.mutable_status();
  REQUIRE(s.on_bytes(encode_mux(kRuntimeServiceConn, encode_ttrpc_frame(1, TtrpcType::response, 0, ok.SerializeAsString())),
                     &out, &error));
  CHECK(s.registered());
  CHECK(out.empty());

  api::ConfigureRequest cfg;
  cfg.set_runtime_name("containerd");
  cfg.set_runtime_version("v2.1.9");
  api::CreateContainerRequest create;
  create.mutable_container()->set_id("c1");
  // Two calls in one read, the second split across two reads.
  std::string second = call(3, "CreateContainer", create.SerializeAsString());
  REQUIRE(s.on_bytes(call(1, "Configure", cfg.SerializeAsString()) + second.substr(0, 9), &out, &error));
  CHECK(s.configured());
  CHECK(s.runtime() == "containerd v2.1.9");
  CHECK(s.pending() > 0);
  REQUIRE(s.on_bytes(second.substr(9), &out, &error));
  CHECK(s.pending() == 0);
  auto got = answers(out);
  REQUIRE(got.size() == 2);
  CHECK(got[0].first == 1);
  CHECK(got[0].second.status().code() == 0);
  api::ConfigureResponse cr;
  REQUIRE(cr.ParseFromString(got[0].second.payload()));
  CHECK(cr.events() == (8 | 16 | 128));  // bits 1 << (event - 1): 4, 5, 8
  api::CreateContainerResponse ccr;
  REQUIRE(ccr.ParseFromString(got[1].second.payload()));
  CHECK(ccr.adjust().hooks().create_runtime(0).path() == "/hook");
  CHECK(h.calls == std::vector<std::string>{"configured containerd", "create c1"});
}

TEST_CASE("session: unknown methods and services get Unimplemented, the connection stays") {
  Recorder h;
  Session s(&h);
  std::string out, error;
  REQUIRE(s.on_bytes(call(1, "UpdatePodSandbox", "") + call(3, "Configure", "", "nri.pkg.api.v1alpha1.Other"), &out, &error));
  auto got = answers(out);
  REQUIRE(got.size() == 2);
  CHECK(got[0].second.status().code() == kCodeUnimplemented);
  CHECK(got[0].second.status().message() == "method UpdatePodSandbox is not implemented by this plugin");
  CHECK(got[1].second.status().code() == kCodeUnimplemented);
  CHECK(h.failures.size() == 2);
}

TEST_CASE("session: Synchronize, StateChange, StopContainer and Shutdown are answered") {
  Recorder h;
  Session s(&h);
  std::string out, error;
  api::StateChangeEvent ev;
  ev.set_event(api::START_CONTAINER);
  REQUIRE(s.on_bytes(call(1, "Synchronize", "") + call(3, "StateChange", ev.SerializeAsString()) +
                         call(5, "StopContainer", "") + call(7, "Shutdown", ""),
                     &out, &error));
  auto got = answers(out);
  REQUIRE(got.size() == 4);
  for (auto& [id, r] : got) CHECK(r.status().code() == 0);
  CHECK(s.shutdown_requested());
}

TEST_CASE("session: PostCreateContainer, as its own call (NRI 0.10+) and as StateChange (older), reaches the handler") {
  Recorder h;
  Session s(&h);
  std::string out, error;
  api::PostCreateContainerRequest req;
  req.mutable_pod()->set_name("p1");
  req.mutable_container()->set_id("c1");
  api::StateChangeEvent ev;
  ev.set_event(api::POST_CREATE_CONTAINER);
  ev.mutable_pod()->set_name("p2");
  ev.mutable_container()->set_id("c2");
  api::StateChangeEvent start;  // other events are answered, not handled
  start.set_event(api::START_CONTAINER);
  start.mutable_container()->set_id("c3");
  api::PostCreateContainerRequest bad;
  bad.mutable_container()->set_id("throws");
  REQUIRE(s.on_bytes(call(1, "PostCreateContainer", req.SerializeAsString()) + call(3, "StateChange", ev.SerializeAsString()) +
                         call(5, "StateChange", start.SerializeAsString()) + call(7, "PostCreateContainer", bad.SerializeAsString()) +
                         call(9, "PostCreateContainer", "\xff\xff"),
                     &out, &error));
  auto got = answers(out);
  REQUIRE(got.size() == 5);
  for (auto& [id, r] : got) CHECK(r.status().code() == 0);  // an event: never an error for the runtime
  CHECK(h.calls == std::vector<std::string>{"created p1/c1", "created p2/c2", "created /throws"});
  REQUIRE(h.failures.size() == 2);
  CHECK(h.failures[0].find("PostCreateContainer: boom") != std::string::npos);
  CHECK(h.failures[1].find("does not parse") != std::string::npos);
}

TEST_CASE("session: our failures in a container's call are answered OK with no adjustment, and logged once") {
  Recorder h;
  std::atomic<uint64_t> failed_total{5};  // an earlier connection's
  Session s(&h, nullptr, &failed_total);
  std::string out, error;
  api::UpdateContainerRequest upd;
  upd.mutable_container()->set_id("throws");
  upd.mutable_pod()->set_namespace_("default");
  upd.mutable_pod()->set_name("gpu-pod");
  REQUIRE(s.on_bytes(call(1, "CreateContainer", "\xff\xff\xff") + call(3, "UpdateContainer", upd.SerializeAsString()) +
                         call(5, "UpdateContainer", "\x0a\x05") + call(7, "StopContainer", "\xff"),
                     &out, &error));
  auto got = answers(out);
  REQUIRE(got.size() == 4);
  for (auto& [id, r] : got) {
    CHECK(r.status().code() == 0);
    CHECK(r.status().message().empty());
  }
  api::CreateContainerResponse none;
  REQUIRE(none.ParseFromString(got[0].second.payload()));
  CHECK_FALSE(none.has_adjust());
  api::UpdateContainerResponse unchanged;
  REQUIRE(unchanged.ParseFromString(got[1].second.payload()));
  CHECK(unchanged.update_size() == 0);
  REQUIRE(h.failures.size() == 4);
  CHECK(h.failures[0] ==
        "CreateContainer: the runtime's request (3 bytes) does not parse, container unknown; answered with no "
        "adjustment: the container starts without the GPU NUMA hook");
  CHECK(h.failures[1] ==
        "UpdateContainer for container throws (pod default/gpu-pod) failed: boom; answered with no adjustment: "
        "the update goes on unchanged");
  CHECK(h.failures[2] ==
        "UpdateContainer: the runtime's request (2 bytes) does not parse, container unknown; answered with no "
        "adjustment: the update goes on unchanged");
  CHECK(h.failures[3] == "StopContainer: the runtime's request does not parse; ignored");
  CHECK(s.calls_failed() == 3);
  CHECK(failed_total == 8);  // the ignored event is not a failed call
}

TEST_CASE("session: Configure and Synchronize that do not parse are refused (no pod depends on them)") {
  Recorder h;
  Session s(&h);
  std::string out, error;
  REQUIRE(s.on_bytes(call(1, "Configure", "\xff") + call(3, "Synchronize", "\xff"), &out, &error));
  auto got = answers(out);
  REQUIRE(got.size() == 2);
  CHECK(got[0].second.status().code() == kCodeInvalidArgument);
  CHECK(got[1].second.status().code() == kCodeInvalidArgument);
  CHECK(got[1].second.status().message() == "SynchronizeRequest payload does not parse");
  REQUIRE(h.failures.size() == 2);
  CHECK(h.failures[1] ==
        "nri.pkg.api.v1alpha1.Plugin/Synchronize: SynchronizeRequest payload does not parse; answered with error code 3");
}

namespace {

// A handler whose answer is bigger than any we should send.
struct Huge : Recorder {
  api::CreateContainerResponse create_container(const api::CreateContainerRequest&) override {
    api::CreateContainerResponse resp;
    resp.mutable_adjust()->mutable_hooks()->add_create_runtime()->add_args(std::string(kMaxAnswerBytes, 'a'));
    return resp;
  }
};

}  // namespace

TEST_CASE("session: an answer over our limit becomes no adjustment, never an error or a dropped connection") {
  Huge h;
  Session s(&h);
  std::string out, error;
  REQUIRE(s.on_bytes(call(1, "CreateContainer", ""), &out, &error));
  auto got = answers(out);
  REQUIRE(got.size() == 1);
  CHECK(got[0].second.status().code() == 0);
  CHECK(got[0].second.payload().empty());
  REQUIRE(h.failures.size() == 1);
  CHECK(h.failures[0].rfind("CreateContainer: our answer of 2621", 0) == 0);
  CHECK(out.size() < 200);
}

TEST_CASE("session: a large answer goes out in chunks the Go multiplexer reads whole (at most 4096 bytes)") {
  struct Big : Recorder {
    api::CreateContainerResponse create_container(const api::CreateContainerRequest&) override {
      api::CreateContainerResponse resp;
      resp.mutable_adjust()->mutable_hooks()->add_create_runtime()->add_args(std::string(100000, 'b'));
      return resp;
    }
  } h;
  Session s(&h);
  std::string out, error;
  REQUIRE(s.on_bytes(call(1, "CreateContainer", ""), &out, &error));
  MuxReader mux;
  mux.feed(out);
  size_t chunks = 0;
  while (auto c = mux.next(&error)) {
    ++chunks;
    CHECK(kMuxHeaderSize + c->payload.size() <= 4096);
  }
  CHECK(chunks == 25);  // a 100 kB argument and the envelopes, 4088 bytes a chunk
  auto got = answers(out);
  REQUIRE(got.size() == 1);
  api::CreateContainerResponse r;
  REQUIRE(r.ParseFromString(got[0].second.payload()));
  CHECK(r.adjust().hooks().create_runtime(0).args(0).size() == 100000);
}

TEST_CASE("session: protocol errors drop the connection with one line") {
  Recorder h;
  std::string out, error;
  SUBCASE("a reused stream id") {
    Session s(&h);
    REQUIRE(s.on_bytes(call(3, "Synchronize", ""), &out, &error));
    out.clear();
    CHECK_FALSE(s.on_bytes(call(3, "Synchronize", ""), &out, &error));
    CHECK(error == "ttrpc: request on stream 3 after stream 3 (stream ids must be odd and increasing)");
  }
  SUBCASE("an even stream id") {
    Session s(&h);
    CHECK_FALSE(s.on_bytes(call(2, "Synchronize", ""), &out, &error));
  }
  SUBCASE("an unknown frame type") {
    Session s(&h);
    CHECK_FALSE(s.on_bytes(encode_mux(kPluginServiceConn, encode_ttrpc_frame(1, TtrpcType(9), 0, "")), &out, &error));
    CHECK(error == "ttrpc: frame of type 9 on stream 1 where only requests are expected");
  }
  SUBCASE("an envelope that does not parse") {
    Session s(&h);
    CHECK_FALSE(s.on_bytes(encode_mux(kPluginServiceConn, encode_ttrpc_frame(1, TtrpcType::request, 0, "\x0a\xff")), &out, &error));
    CHECK(error == "ttrpc: request on stream 1 does not parse");
  }
  SUBCASE("a frame over the limit") {
    Session s(&h);
    CHECK_FALSE(s.on_bytes(encode_mux(kPluginServiceConn, std::string("\x01\x00\x00\x00\x00\x00\x00\x01\x01\x00", 10)), &out, &error));
    CHECK(error == "ttrpc: frame announces 16777216 bytes, over the 4 MiB limit");
  }
  SUBCASE("an unknown multiplexed connection") {
    Session s(&h);
    CHECK_FALSE(s.on_bytes(encode_mux(7, "x"), &out, &error));
    CHECK(error == "multiplexer: data for unknown connection 7");
  }
  SUBCASE("RegisterPlugin refused") {
    Session s(&h);
    s.register_plugin("gpu-numa", "10");
    gnh::ttrpc::Response no;
    no.mutable_status()->set_code(3);
    no.mutable_status()->set_message("plugin index must be two digits");
    CHECK_FALSE(s.on_bytes(encode_mux(kRuntimeServiceConn, encode_ttrpc_frame(1, TtrpcType::response, 0, no.SerializeAsString())),
                           &out, &error));
    CHECK(error == "the runtime refused RegisterPlugin: plugin index must be two digits");
  }
  SUBCASE("an answer we did not ask for") {
    Session s(&h);
    CHECK_FALSE(s.on_bytes(encode_mux(kRuntimeServiceConn, encode_ttrpc_frame(5, TtrpcType::response, 0, "")), &out, &error));
  }
  CHECK(out.empty());
}

TEST_CASE("session: a split Synchronize is answered with the request's `more`, no update") {
  Recorder h;
  Session s(&h);
  std::string out, error;
  api::SynchronizeRequest first, last;
  first.set_more(true);
  first.add_containers()->set_id("c1");
  last.add_containers()->set_id("c2");
  REQUIRE(s.on_bytes(call(1, "Synchronize", first.SerializeAsString()) + call(3, "Synchronize", last.SerializeAsString()),
                     &out, &error));
  auto got = answers(out);
  REQUIRE(got.size() == 2);
  api::SynchronizeResponse r1, r2;
  CHECK(got[0].second.status().code() == 0);
  REQUIRE(r1.ParseFromString(got[0].second.payload()));
  CHECK(r1.more());
  CHECK(r1.update_size() == 0);
  REQUIRE(r2.ParseFromString(got[1].second.payload()));
  CHECK_FALSE(r2.more());
  CHECK(h.failures.empty());
}

TEST_CASE("session: with a flush, each answer goes out before the next call in the same read is handled") {
  Recorder h;
  Session s(&h);
  std::vector<std::pair<size_t, std::string>> flushed;  // (calls handled when flushed, the bytes)
  s.set_flush([&](const std::string& out, std::string*) {
    flushed.emplace_back(h.calls.size(), out);
    return true;
  });
  api::ConfigureRequest cfg;
  cfg.set_runtime_name("containerd");
  api::CreateContainerRequest a, b;
  a.mutable_container()->set_id("a");
  b.mutable_container()->set_id("b");
  std::string out, error;
  // three calls in one read, as a runtime creating two pods at once sends them
  REQUIRE(s.on_bytes(call(1, "Configure", cfg.SerializeAsString()) + call(3, "CreateContainer", a.SerializeAsString()) +
                         call(5, "CreateContainer", b.SerializeAsString()),
                     &out, &error));
  CHECK(out.empty());  // everything went through the flush
  REQUIRE(flushed.size() == 3);
  CHECK(flushed[1].first == 2);  // a's answer out while b was not yet handled
  CHECK(answers(flushed[1].second).at(0).first == 3);
  CHECK(answers(flushed[2].second).at(0).first == 5);
  // a flush that fails drops the connection with its reason
  s.set_flush([](const std::string&, std::string* why) {
    *why = "write to the runtime failed: Broken pipe";
    return false;
  });
  CHECK_FALSE(s.on_bytes(call(7, "CreateContainer", a.SerializeAsString()), &out, &error));
  CHECK(error == "write to the runtime failed: Broken pipe");
}
