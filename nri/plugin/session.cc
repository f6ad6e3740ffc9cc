#include "plugin/session.h"

#include <exception>
#include <memory>

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
  reg.set_nri_version(kNriApiVersion);
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
      if (flush_ && !out->empty()) {
        if (!flush_(*out, error)) return false;
        out->clear();
      }
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
  Answer a;
  if (req.service() != kPluginService) {
    a.code = kCodeUnimplemented;
    a.message = "service " + printable(req.service()) + " is not served by this plugin";
  } else {
    a = dispatch(req.method(), req.payload());
  }
  if (a.code == 0 && a.payload.size() > kMaxAnswerBytes) {
    a.failure = printable(req.method()) + ": our answer of " + std::to_string(a.payload.size()) +
                " bytes is over the plugin's limit of " + std::to_string(kMaxAnswerBytes) +
                "; answered with no adjustment instead";
    a.payload.clear();
    count_failure();
  }
  if (a.code != 0 && a.failure.empty())
    a.failure = printable(req.service()) + "/" + printable(req.method()) + ": " + a.message +
                "; answered with error code " + std::to_string(a.code);
  if (!a.failure.empty()) handler_->call_failed(a.failure);
  gnh::ttrpc::Response resp;
  resp.mutable_status()->set_code(a.code);
  if (!a.message.empty()) resp.mutable_status()->set_message(a.message);
  if (a.code == 0) resp.set_payload(std::move(a.payload));
  out->append(encode_mux(kPluginServiceConn, encode_ttrpc_frame(f.stream_id, TtrpcType::response, 0,
                                                                resp.SerializeAsString())));
  ++handled_;
  return true;
}

namespace {

// "container <id> (pod <ns>/<name>)" from a parsed request, for the log line.
template <class Req>
std::string who(const Req& req) {
  std::string s = "container " + printable(req.container().id());
  if (req.has_pod()) s += " (pod " + printable(req.pod().namespace_()) + "/" + printable(req.pod().name()) + ")";
  return s;
}

// What "no adjustment" means to the operator, per call.
std::string consequence(std::string_view method) {
  return method == "CreateContainer" ? "answered with no adjustment: the container starts without the GPU NUMA hook"
                                     : "answered with no adjustment: the update goes on unchanged";
}

}  // namespace

template <class Req, class Resp>
Session::Answer Session::container_call(const char* method, const std::string& payload,
                                        Resp (PluginHandler::*fn)(const Req&),
                                        std::optional<Resp> (PluginHandler::*from_request)(const Req&)) {
  Answer a;
  auto req = std::make_shared<Req>();
  if (!req->ParseFromString(payload)) {
    count_failure();
    a.failure = std::string(method) + ": the runtime's request (" + std::to_string(payload.size()) +
                " bytes) does not parse, container unknown; " + consequence(method);
    return a;
  }
  try {
    if (auto resp = (handler_->*from_request)(*req)) {
      a.payload = resp->SerializeAsString();
      return a;
    }
  } catch (const std::exception&) {
    // Left to the bounded call below, which reports what goes wrong.
  }
  // Shared with the job: a job abandoned past its deadline still writes here, never into `a`.
  struct Result {
    std::string payload;
    std::string error;
  };
  auto result = std::make_shared<Result>();
  auto job = [h = handler_, fn, req, result] {
    try {
      result->payload = (h->*fn)(*req).SerializeAsString();
    } catch (const std::exception& e) {
      result->error = e.what();
      if (result->error.empty()) result->error = "an exception without a message";
    } catch (...) {
      result->error = "an exception that is not a std::exception";
    }
  };
  auto outcome = BoundedCall::Outcome::done;
  const auto deadline = this->deadline();
  if (bounded_)
    outcome = bounded_->run(job, deadline);
  else
    job();
  std::string failed;
  if (outcome == BoundedCall::Outcome::timed_out)
    failed = "did not finish within " + std::to_string(deadline.count()) +
             " ms (the runtime's request timeout less a margin; a host file read hangs?)";
  else if (outcome == BoundedCall::Outcome::busy)
    failed = "was not run: " + std::to_string(bounded_->stuck()) +
             " earlier call(s) still stuck in host reads past their deadline (a hung driver or cgroup file?)";
  else if (!result->error.empty())
    failed = "failed: " + printable(result->error);
  if (failed.empty()) {
    a.payload = std::move(result->payload);
    return a;
  }
  count_failure();
  a.failure = std::string(method) + " for " + who(*req) + " " + failed + "; " + consequence(method);
  return a;
}

Session::Answer Session::dispatch(const std::string& method, const std::string& payload) {
  Answer a;
  auto bad = [&](const char* what) {
    a.code = kCodeInvalidArgument;
    a.message = std::string(what) + " payload does not parse";
    return a;
  };
  // Events we do not act on: a payload that does not parse changes nothing, so it is answered OK.
  auto event = [&](auto msg, auto resp) {
    if (!msg.ParseFromString(payload)) a.failure = method + ": the runtime's request does not parse; ignored";
    a.payload = resp.SerializeAsString();
    return a;
  };
  if (method == "Configure") {
    api::ConfigureRequest req;
    if (!req.ParseFromString(payload)) return bad("ConfigureRequest");
    runtime_ = printable(req.runtime_name()) + " " + printable(req.runtime_version());
    request_timeout_ms_ = req.request_timeout();
    configured_ = true;
    try {
      handler_->configured(req);
    } catch (const std::exception& e) {
      a.failure = "Configure: " + printable(e.what()) + " (the plugin goes on configured)";
    }
    api::ConfigureResponse resp;
    resp.set_events(kSubscribedEvents);
    a.payload = resp.SerializeAsString();
    return a;
  }
  if (method == "Synchronize") {
    api::SynchronizeRequest req;
    // Unparsable, we cannot know its `more`: an error drops the registration, which is retried.
    if (!req.ParseFromString(payload)) return bad("SynchronizeRequest");
    // Nothing to change in running containers. A runtime whose state exceeds one message splits
    // it (nri >= 0.7) and drops a plugin whose answer's `more` differs from the request's.
    api::SynchronizeResponse resp;
    resp.set_more(req.more());
    if (!req.more()) synchronized_ = true;
    a.payload = resp.SerializeAsString();
    return a;
  }
  if (method == "Shutdown") {
    shutdown_ = true;
    a.payload = api::Empty().SerializeAsString();
    return a;
  }
  if (method == "CreateContainer")
    return container_call("CreateContainer", payload, &PluginHandler::create_container,
                          &PluginHandler::create_from_request);
  if (method == "UpdateContainer")
    return container_call("UpdateContainer", payload, &PluginHandler::update_container,
                          &PluginHandler::update_from_request);
  if (method == "StopContainer") return event(api::StopContainerRequest(), api::StopContainerResponse());
  // NRI 0.10 and later send PostCreateContainer as a call of its own, and fall back to StateChange
  // for a plugin that answers it Unimplemented; older runtimes send StateChange only.
  auto created = [&](const api::PodSandbox& pod, const api::Container& c) {
    try {
      handler_->container_created(pod, c);
    } catch (const std::exception& e) {
      a.failure = "PostCreateContainer: " + printable(e.what()) + " (the container was not judged)";
    }
  };
  if (method == "PostCreateContainer") {
    api::PostCreateContainerRequest req;
    if (!req.ParseFromString(payload)) return event(api::PostCreateContainerRequest(), api::PostCreateContainerResponse());
    created(req.pod(), req.container());
    a.payload = api::PostCreateContainerResponse().SerializeAsString();
    return a;
  }
  // CreateContainer and UpdateContainer always come as calls of their own.
  if (method == "StateChange") {
    api::StateChangeEvent ev;
    if (!ev.ParseFromString(payload)) return event(api::StateChangeEvent(), api::Empty());
    if (ev.event() == api::POST_CREATE_CONTAINER) created(ev.pod(), ev.container());
    a.payload = api::Empty().SerializeAsString();
    return a;
  }
  // Unimplemented, not OK: a newer runtime answered so falls back to an older call (NRI's
  // pkg/adaptation does that for the calls it added), which an empty OK would not make it do.
  a.code = kCodeUnimplemented;
  a.message = "method " + printable(method) + " is not implemented by this plugin";
  return a;
}

}  // namespace gnh::nri
