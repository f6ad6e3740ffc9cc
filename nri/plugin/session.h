// One NRI connection as a state machine: the multiplexer's chunks in, ttrpc frames decoded per
// logical connection, the runtime's calls (conn 1) dispatched to a PluginHandler and answered, our
// own RegisterPlugin call (conn 2) sent and its answer awaited. No sockets here: bytes in, bytes out,
// so every bad input has a test (plugin/session_test.cc) and a fuzz target.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "nri_api.pb.h"
#include "wire/mux_frame.h"
#include "wire/ttrpc_frame.h"

namespace gnh::nri {

namespace api = ::nri::pkg::api::v1alpha1;

// The events we subscribe to in ConfigureResponse (bit 1 << (Event - 1)).
constexpr int32_t kSubscribedEvents = (1 << (api::CREATE_CONTAINER - 1)) | (1 << (api::UPDATE_CONTAINER - 1));
constexpr int32_t kCodeInvalidArgument = 3;
constexpr int32_t kCodeUnimplemented = 12;
constexpr int32_t kCodeInternal = 13;
constexpr const char* kPluginService = "nri.pkg.api.v1alpha1.Plugin";
constexpr const char* kRuntimeService = "nri.pkg.api.v1alpha1.Runtime";

// What the plugin decides; the session only speaks the protocol. A handler that throws gets the
// runtime an Internal error for that call (the container goes on without us: fail-open, logged).
class PluginHandler {
 public:
  virtual ~PluginHandler() = default;
  virtual void configured(const api::ConfigureRequest& req) = 0;
  virtual api::CreateContainerResponse create_container(const api::CreateContainerRequest& req) = 0;
  virtual api::UpdateContainerResponse update_container(const api::UpdateContainerRequest& req) = 0;
  // A call the session answered with an error (bad payload, unknown method): one line for the log.
  virtual void call_failed(const std::string& what) = 0;
};

class Session {
 public:
  explicit Session(PluginHandler* handler) : handler_(handler) {}

  // The RegisterPlugin call to send first (conn 2, stream 1).
  std::string register_plugin(const std::string& name, const std::string& idx);

  // Bytes from the socket. Appends what must be written back to *out. Returns false when the
  // connection must be dropped, with *error saying why in one line (a frame over the limit, a
  // broken envelope, a reused stream id, an unknown frame type, registration refused).
  bool on_bytes(std::string_view bytes, std::string* out, std::string* error);

  bool registered() const { return registered_; }
  bool configured() const { return configured_; }
  bool shutdown_requested() const { return shutdown_; }
  // Bytes of a frame begun and not finished, on either level: a peer that stops mid-frame.
  size_t pending() const { return mux_.pending() + calls_.pending() + replies_.pending(); }
  const std::string& runtime() const { return runtime_; }  // "containerd v2.1.9", after Configure
  uint64_t calls_handled() const { return handled_; }

 private:
  bool on_call(const TtrpcFrame& f, std::string* out, std::string* error);
  bool on_reply(const TtrpcFrame& f, std::string* error);
  std::string dispatch(const std::string& method, const std::string& payload, int32_t* code, std::string* message);

  PluginHandler* handler_;
  MuxReader mux_;
  TtrpcFrameReader calls_;    // conn 1: the runtime's requests
  TtrpcFrameReader replies_;  // conn 2: answers to our requests
  uint32_t last_call_stream_ = 0;
  uint32_t register_stream_ = 0;
  bool registered_ = false;
  bool configured_ = false;
  bool shutdown_ = false;
  std::string runtime_;
  uint64_t handled_ = 0;
};

}  // namespace gnh::nri
