// NRI's connection multiplexer (containerd/nri pkg/net/multiplex): one socket carries several
// logical byte streams, each chunk framed by an 8-byte header (conn id u32 BE, length u32 BE).
// Conn 1 carries the runtime's calls to the plugin, conn 2 the plugin's calls to the runtime; 0 is
// reserved. A ttrpc frame may span chunks and a chunk may hold parts of two frames, so each conn is
// a byte stream of its own. Pure.
//
// The two directions have different bounds. We accept chunks up to 10 + 4 MiB (one ttrpc frame,
// what the Go writer may send). We write chunks of at most 4096 bytes, header included: the Go
// side hands a whole chunk to one Read of its caller's buffer and fails the connection (ENOMEM)
// when the chunk is larger, and ttrpc reads through a 4096-byte bufio.Reader, whose Read passes
// either its own 4096-byte buffer or, for a read of 4096 bytes or more, the caller's slice (never
// smaller than 4096). So only a chunk that fits 4096 bytes is taken on every path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gnh::nri {

constexpr size_t kMuxHeaderSize = 8;
constexpr uint32_t kMuxMaxPayload = 10 + (4u << 20);  // what we accept
constexpr size_t kMuxMaxWriteChunk = 4096;            // what we send, header included
constexpr size_t kMuxMaxWritePayload = kMuxMaxWriteChunk - kMuxHeaderSize;
constexpr uint32_t kPluginServiceConn = 1;
constexpr uint32_t kRuntimeServiceConn = 2;

struct MuxChunk {
  uint32_t conn = 0;
  std::string payload;
};

// `bytes` for logical connection `conn`, split into chunks of at most kMuxMaxWritePayload bytes
// (an empty `bytes` is one empty chunk).
std::string encode_mux(uint32_t conn, std::string_view bytes);

// Chunks from the socket's byte stream, bounded like TtrpcFrameReader: a length over the limit or
// conn id 0 is an error at once; afterwards the reader is unusable.
class MuxReader {
 public:
  void feed(std::string_view bytes) { buf_.append(bytes); }
  std::optional<MuxChunk> next(std::string* error);
  size_t pending() const { return buf_.size(); }
  size_t capacity() const { return buf_.capacity(); }  // what the buffer holds on to

 private:
  std::string buf_;
  bool broken_ = false;
};

}  // namespace gnh::nri
