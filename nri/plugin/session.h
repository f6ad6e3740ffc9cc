// One NRI connection as a state machine: the multiplexer's chunks in, ttrpc frames decoded per
// logical connection, the runtime's calls (conn 1) dispatched to a PluginHandler and answered, our
// own RegisterPlugin call (conn 2) sent and its answer awaited. No sockets here: bytes in, bytes out,
// so every bad input has a test (plugin/session_test.cc) and a fuzz target.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "nri_api.pb.h"
#include "plugin/bounded_call.h"
#include "wire/mux_frame.h"
#include "wire/ttrpc_frame.h"

namespace gnh::nri {

namespace api = ::nri::pkg::api::v1alpha1;

// The events we subscribe to in ConfigureResponse (bit 1 << (Event - 1)).
// PostCreateContainer: the container as created, after every plugin's adjustment.
constexpr int32_t kSubscribedEvents = (1 << (api::CREATE_CONTAINER - 1)) | (1 << (api::POST_CREATE_CONTAINER - 1)) |
                                      (1 << (api::UPDATE_CONTAINER - 1));
constexpr int32_t kCodeInvalidArgument = 3;
constexpr int32_t kCodeUnimplemented = 12;
constexpr int32_t kCodeInternal = 13;
constexpr const char* kPluginService = "nri.pkg.api.v1alpha1.Plugin";
constexpr const char* kRuntimeService = "nri.pkg.api.v1alpha1.Runtime";
// The containerd/nri release whose api.proto nri_api.proto was last checked against, sent at
// registration as NRI 0.12 plugins send theirs (runtimes only log it).
constexpr const char* kNriApiVersion = "v0.12.0";

// Our answers stay far below what the Go multiplexer queues for its reader (256 chunks, about
// 1 MiB, before it fails the connection): ours are a few hundred bytes.
constexpr size_t kMaxAnswerBytes = 256 * 1024;

// What the plugin decides; the session only speaks the protocol. Whatever goes wrong on our side
// in a container's call (a payload that does not parse, a handler that throws, host reads past the
// deadline, an answer over the limit) is answered "no adjustment" with status OK, never an error:
// NRI hands a plugin's error to kubelet, and the pod would fail because of us. The container goes
// on as if the plugin were absent, and call_failed gets one line saying so.
class PluginHandler {
 public:
  virtual ~PluginHandler() = default;
  virtual void configured(const api::ConfigureRequest& req) = 0;
  virtual api::CreateContainerResponse create_container(const api::CreateContainerRequest& req) = 0;
  virtual api::UpdateContainerResponse update_container(const api::UpdateContainerRequest& req) = 0;
  // The answer when the request alone decides it, with no host read and no log line (a container
  // that cannot get a GPU); nullopt otherwise. Such a call is answered on the connection's thread:
  // there is nothing to bound, and the hand-off to the worker and back (two thread wake-ups) was
  // most of its time. Must not block.
  virtual std::optional<api::CreateContainerResponse> create_from_request(const api::CreateContainerRequest&) {
    return std::nullopt;
  }
  virtual std::optional<api::UpdateContainerResponse> update_from_request(const api::UpdateContainerRequest&) {
    return std::nullopt;
  }
  // The container as created (PostCreateContainer): an event, answered at once whatever it finds.
  virtual void container_created(const api::PodSandbox&, const api::Container&) {}
  // A call that went wrong on our side, or that the session refused (unknown method): one whole
  // sentence for the log, naming the call and the container where known and what the runtime got.
  virtual void call_failed(const std::string& what) = 0;
};

class Session {
 public:
  // With `bounded`, CreateContainer and UpdateContainer run there, each within a deadline from
  // Configure's request timeout (call_deadline); without, inline (tests, fuzzing). `bounded`
  // outlives the session: a job stuck past its deadline may outlive one connection. With
  // `failed_total`, every call counted in calls_failed() is counted there too: the plugin's count
  // over all its connections, read by another thread (the state file's heartbeat).
  explicit Session(PluginHandler* handler, BoundedCall* bounded = nullptr,
                   std::atomic<uint64_t>* failed_total = nullptr)
      : handler_(handler), bounded_(bounded), failed_total_(failed_total) {}

  // The RegisterPlugin call to send first (conn 2, stream 1).
  std::string register_plugin(const std::string& name, const std::string& idx);

  // Bytes from the socket. Appends what must be written back to *out. Returns false when the
  // connection must be dropped, with *error saying why in one line (a frame over the limit, a
  // broken envelope, a reused stream id, an unknown frame type, registration refused).
  bool on_bytes(std::string_view bytes, std::string* out, std::string* error);

  // Called with *out after each call is answered, when set: the answer goes to the runtime before
  // the next call in the same read is handled, so a slow call never delays an earlier one's
  // answer past the runtime's timeout. False (with *why) drops the connection.
  using Flush = std::function<bool(const std::string& out, std::string* why)>;
  void set_flush(Flush f) { flush_ = std::move(f); }

  bool registered() const { return registered_; }
  bool configured() const { return configured_; }
  // The runtime's registration is complete: the last (or only) Synchronize part was answered.
  bool synchronized() const { return synchronized_; }
  bool shutdown_requested() const { return shutdown_; }
  // Bytes of a frame begun and not finished, on either level: a peer that stops mid-frame.
  size_t pending() const { return mux_.pending() + calls_.pending() + replies_.pending(); }
  const std::string& runtime() const { return runtime_; }  // "containerd v2.1.9", after Configure
  uint64_t calls_handled() const { return handled_; }
  // Container calls answered "no adjustment" because something failed on our side.
  uint64_t calls_failed() const { return failed_; }
  std::chrono::milliseconds deadline() const { return call_deadline(request_timeout_ms_); }

  // One call's answer: an error status (code != 0) or a payload, and a line for the log if
  // something went wrong on our side.
  struct Answer {
    int32_t code = 0;
    std::string message;
    std::string payload;
    std::string failure;
  };

 private:
  bool on_call(const TtrpcFrame& f, std::string* out, std::string* error);
  bool on_reply(const TtrpcFrame& f, std::string* error);
  Answer dispatch(const std::string& method, const std::string& payload);
  void count_failure() {
    ++failed_;
    if (failed_total_) failed_total_->fetch_add(1, std::memory_order_relaxed);
  }
  template <class Req, class Resp>
  Answer container_call(const char* method, const std::string& payload, Resp (PluginHandler::*fn)(const Req&),
                        std::optional<Resp> (PluginHandler::*from_request)(const Req&));

  PluginHandler* handler_;
  BoundedCall* bounded_;
  Flush flush_;
  std::atomic<uint64_t>* failed_total_;
  long long request_timeout_ms_ = 0;
  MuxReader mux_;
  TtrpcFrameReader calls_;    // conn 1: the runtime's requests
  TtrpcFrameReader replies_;  // conn 2: answers to our requests
  uint32_t last_call_stream_ = 0;
  uint32_t register_stream_ = 0;
  bool registered_ = false;
  bool configured_ = false;
  bool synchronized_ = false;
  bool shutdown_ = false;
  std::string runtime_;
  uint64_t handled_ = 0;
  uint64_t failed_ = 0;
};

}  // namespace gnh::nri
