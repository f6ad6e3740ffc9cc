// The two framings on an NRI socket (nri/wire): the multiplexer's chunks and ttrpc's frames, fed
// in pieces of every size. A frame that comes out must encode back to the same bytes; nothing may
// be buffered beyond what was fed; an over-limit header must be refused, never allocated.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "wire/mux_frame.h"
#include "wire/ttrpc_frame.h"

using namespace gnh::nri;

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
      if (encode_mux(c->conn, c->payload).size() != kMuxHeaderSize + c->payload.size()) __builtin_trap();
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
