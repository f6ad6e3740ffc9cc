// The two framings on an NRI socket (nri/wire): the multiplexer's chunks and ttrpc's frames, fed
// in pieces of every size. A frame that comes out must encode back to the same bytes; a chunk's
// payload written back must come out as chunks of at most 4096 bytes (what the Go reader takes)
// that join to the same bytes; nothing may be buffered beyond what was fed; an over-limit header
// must be refused, never allocated.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "wire/mux_frame.h"
#include "wire/ttrpc_frame.h"

using namespace gnh::nri;

namespace {

// Our writer's side: the payload re-encoded splits into chunks the Go reader takes, in order.
void rewrite_check(uint32_t conn, const std::string& payload) {
  std::string wire = encode_mux(conn, payload);
  const size_t chunks = payload.empty() ? 1 : (payload.size() + kMuxMaxWritePayload - 1) / kMuxMaxWritePayload;
  if (wire.size() != payload.size() + chunks * kMuxHeaderSize) __builtin_trap();
  MuxReader back;
  back.feed(wire);
  std::string joined, e;
  size_t seen = 0;
  while (auto c = back.next(&e)) {
    if (c->conn != conn || kMuxHeaderSize + c->payload.size() > kMuxMaxWriteChunk) __builtin_trap();
    joined += c->payload;
    ++seen;
  }
  if (!e.empty() || seen != chunks || joined != payload || back.pending() != 0) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t piece = 1 + data[0] % 64;
  std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  MuxReader mux;
  TtrpcFrameReader frames;
  std::string error;
  size_t fed = 0;
  for (size_t i = 0; i < bytes.size(); i += piece) {
    std::string_view part = bytes.substr(i, piece);
    mux.feed(part);
    fed += part.size();
    if (mux.pending() > fed) __builtin_trap();
    while (auto c = mux.next(&error)) {
      if (c->conn == 0 || c->payload.size() > kMuxMaxPayload) __builtin_trap();
      rewrite_check(c->conn, c->payload);
      frames.feed(c->payload);
      while (auto f = frames.next(&error)) {
        if (f->data.size() > kTtrpcMaxData) __builtin_trap();
        std::string again = encode_ttrpc_frame(f->stream_id, TtrpcType(f->type), f->flags, f->data);
        TtrpcFrameReader back;
        std::string e2;
        back.feed(again);
        auto g = back.next(&e2);
        if (!g || g->stream_id != f->stream_id || g->type != f->type || g->flags != f->flags || g->data != f->data)
          __builtin_trap();
      }
      if (!error.empty()) return 0;
    }
    if (!error.empty()) return 0;
  }
  return 0;
}
