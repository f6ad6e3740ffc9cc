#include "plugin/session.h"

#include <exception>

#include "ttrpc.pb.h"

namespace gnh::nri {

namespace {

// Text from the peer, made safe for one log line.
std::string printable(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 120)) out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  return out;
}

}  // namespace

std::string Session::register_plugin(const std::string& name, const std::string& idx) {
  api::RegisterPluginRequest reg;
  reg.set_plugin_name(name);
  reg.set_plugin_idx(idx);
  gnh::ttrpc::Request req;
  req.set_service(kRuntimeService);
  req.set_method("RegisterPlugin");
  req.set_payload(reg.SerializeAsString());
  register_stream_ = 1;  // a client's streams are odd; this is our first and only call
  return encode_mux(kRuntimeServiceConn,
                    encode_ttrpc_frame(register_stream_, TtrpcType::request, 0, req.SerializeAsString()));
}

bool Session::on_bytes(std::string_view bytes, std::string* out, std::string* error) {
  error->clear();
  mux_.feed(bytes);
  while (auto chunk = mux_.next(error)) {
    TtrpcFrameReader* r = chunk->conn == kPluginServiceConn    ? &calls_
                          : chunk->conn == kRuntimeServiceConn ? &replies_
                                                               : nullptr;
    if (!r) {
      *error = "multiplexer: data for unknown connection " + std::to_string(chunk->conn);
      return false;
    }
    r->feed(chunk->payload);
    while (auto f = r->next(error)) {
      bool ok = r == &calls_ ? on_call(*f, out, error) : on_reply(*f, error);
      if (!ok) return false;
    }
    if (!error->empty()) return false;
  }
  return error->empty();
}

bool Session::on_reply(const TtrpcFrame& f, std::string* error) {
  if (f.type != uint8_t(TtrpcType::response) || f.stream_id != register_stream_ || registered_) {
    *error = "ttrpc: unexpected frame from the runtime on our call connection (type " + std::to_string(f.type) +
             ", stream " + std::to_string(f.stream_id) + ")";
    return false;
  }
  gnh::ttrpc::Response resp;
  if (!resp.ParseFromString(f.data)) {
    *error = "ttrpc: the runtime's answer to RegisterPlugin does not parse";
    return false;
  }
  if (resp.has_status() && resp.status().code() != 0) {
    *error = "the runtime refused RegisterPlugin: " + printable(resp.status().message());
    return false;
  }
  registered_ = true;
  return true;
}

bool Session::on_call(const TtrpcFrame& f, std::string* out, std::string* error) {
  if (f.type != uint8_t(TtrpcType::request)) {
    *error = "ttrpc: frame of type " + std::to_string(f.type) + " on stream " + std::to_string(f.stream_id) +
             " where only requests are expected";
    return false;
  }
  // A client's streams are odd and each new one larger: a reused id would make two answers ambiguous.
  if (f.stream_id % 2 == 0 || f.stream_id <= last_call_stream_) {
    *error = "ttrpc: request on stream " + std::to_string(f.stream_id) + " after stream " +
             std::to_string(last_call_stream_) + " (stream ids must be odd and increasing)";
    return false;
  }
  last_call_stream_ = f.stream_id;
  gnh::ttrpc::Request req;
  if (!req.ParseFromString(f.data)) {
    *error = "ttrpc: request on stream " + std::to_string(f.stream_id) + " does not parse";
    return false;
  }
  int32_t code = 0;
  std::string message;
  std::string payload;
  if (req.service() != kPluginService) {
    code = kCodeUnimplemented;
    message = "service " + printable(req.service()) + " is not served by this plugin";
  } else {
    payload = dispatch(req.method(), req.payload(), &code, &message);
  }
  if (code != 0) handler_->call_failed(printable(req.service()) + "/" + printable(req.method()) + ": " + message);
  gnh::ttrpc::Response resp;
  resp.mutable_status()->set_code(code);
  if (!message.empty()) resp.mutable_status()->set_message(message);
  if (code == 0) resp.set_payload(std::move(payload));
  std::string body = resp.SerializeAsString();
  if (body.size() > kTtrpcMaxData) {  // not for our small answers; never send a frame over the limit
    resp.clear_payload();
    resp.mutable_status()->set_code(kCodeInternal);
    resp.mutable_status()->set_message("answer over the 4 MiB limit");
    body = resp.SerializeAsString();
  }
  out->append(encode_mux(kPluginServiceConn, encode_ttrpc_frame(f.stream_id, TtrpcType::response, 0, body)));
  ++handled_;
  return true;
}

std::string Session::dispatch(const std::string& method, const std::string& payload, int32_t* code,
                              std::string* message) {
  auto bad = [&](const char* what) {
    *code = kCodeInvalidArgument;
    *message = std::string(what) + " payload does not parse";
    return std::string();
  };
  try {
    if (method == "Configure") {
      api::ConfigureRequest req;
      if (!req.ParseFromString(payload)) return bad("ConfigureRequest");
      runtime_ = printable(req.runtime_name()) + " " + printable(req.runtime_version());
      configured_ = true;
      handler_->configured(req);
      api::ConfigureResponse resp;
      resp.set_events(kSubscribedEvents);
      return resp.SerializeAsString();
    }
    if (method == "Synchronize") {
      api::SynchronizeRequest req;
      if (!req.ParseFromString(payload)) return bad("SynchronizeRequest");
      return api::SynchronizeResponse().SerializeAsString();  // nothing to change in running containers
    }
    if (method == "Shutdown") {
      shutdown_ = true;
      return api::Empty().SerializeAsString();
    }
    if (method == "CreateContainer") {
      api::CreateContainerRequest req;
      if (!req.ParseFromString(payload)) return bad("CreateContainerRequest");
      return handler_->create_container(req).SerializeAsString();
    }
    if (method == "UpdateContainer") {
      api::UpdateContainerRequest req;
      if (!req.ParseFromString(payload)) return bad("UpdateContainerRequest");
      return handler_->update_container(req).SerializeAsString();
    }
    if (method == "StopContainer") {
      api::StopContainerRequest req;
      if (!req.ParseFromString(payload)) return bad("StopContainerRequest");
      return api::StopContainerResponse().SerializeAsString();
    }
    if (method == "StateChange") {
      // Older runtimes send every event this way; CreateContainer and UpdateContainer always come
      // as calls of their own, so an event needs no action here.
      api::StateChangeEvent req;
      if (!req.ParseFromString(payload)) return bad("StateChangeEvent");
      return api::Empty().SerializeAsString();
    }
  } catch (const std::exception& e) {
    *code = kCodeInternal;
    *message = printable(e.what());
    return {};
  }
  *code = kCodeUnimplemented;
  *message = "method " + printable(method) + " is not implemented by this plugin";
  return {};
}

}  // namespace gnh::nri
