// The plugin's session (nri/plugin/session.h) on hostile bytes from the runtime: envelopes and
// NRI messages that do not parse, unknown methods, reused stream ids. It must answer or refuse
// with a line, never crash, never buffer more than it was fed, and every answer it writes must be
// well-formed chunks of at most 4096 bytes carrying well-formed ttrpc responses.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "plugin/session.h"

using namespace gnh::nri;

namespace {

struct NullHandler : PluginHandler {
  void configured(const api::ConfigureRequest&) override {}
  api::CreateContainerResponse create_container(const api::CreateContainerRequest& r) override {
    api::CreateContainerResponse resp;
    if (r.container().env_size() > 0) resp.mutable_adjust()->mutable_hooks()->add_create_runtime()->set_path("/h");
    return resp;
  }
  api::UpdateContainerResponse update_container(const api::UpdateContainerRequest&) override { return {}; }
  void call_failed(const std::string&) override {}
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t split = data[0] % (size);
  std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  NullHandler h;
  Session s(&h);
  s.register_plugin("gpu-numa", "10");
  std::string out, error;
  bool ok = s.on_bytes(bytes.substr(0, split), &out, &error);
  if (ok) ok = s.on_bytes(bytes.substr(std::min(split, bytes.size())), &out, &error);
  if (!ok && error.empty()) __builtin_trap();  // a dropped connection always says why
  if (s.pending() > bytes.size()) __builtin_trap();
  MuxReader mux;
  TtrpcFrameReader frames;
  std::string e;
  mux.feed(out);
  while (auto c = mux.next(&e)) {
    // Each chunk we write must fit the Go multiplexer's 4096-byte read, or the runtime drops us.
    if (c->conn != kPluginServiceConn || kMuxHeaderSize + c->payload.size() > kMuxMaxWriteChunk) __builtin_trap();
    frames.feed(c->payload);
    while (auto f = frames.next(&e))
      if (f->type != uint8_t(TtrpcType::response)) __builtin_trap();
  }
  if (!e.empty() || mux.pending() != 0 || frames.pending() != 0) __builtin_trap();
  return 0;
}
