// ttrpc's message framing (containerd/ttrpc PROTOCOL.md) over one byte stream: a 10-byte header
// (length u32 BE, stream id u32 BE, type u8, flags u8) and at most 4 MiB of data. Pure: bytes in,
// frames out, nothing read from a socket here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gnh::nri {

constexpr size_t kTtrpcHeaderSize = 10;
constexpr uint32_t kTtrpcMaxData = 4u << 20;

enum class TtrpcType : uint8_t { request = 1, response = 2, data = 3 };

struct TtrpcFrame {
  uint32_t stream_id = 0;
  uint8_t type = 0;   // TtrpcType, unchecked: the session answers an unknown type
  uint8_t flags = 0;
  std::string data;
};

// The frame's bytes. The caller keeps data within kTtrpcMaxData (a Failure otherwise).
std::string encode_ttrpc_frame(uint32_t stream_id, TtrpcType type, uint8_t flags, std::string_view data);

// Frames from a byte stream that arrives in arbitrary pieces. Bounded: a header announcing more
// than kTtrpcMaxData is an error at once, so the buffer never holds more than one frame plus the
// last piece fed. After an error the stream is unusable (the peer must be dropped).
class TtrpcFrameReader {
 public:
  void feed(std::string_view bytes) { buf_.append(bytes); }
  // A whole frame when one is buffered; nullopt when more bytes are needed or on error (*error set).
  std::optional<TtrpcFrame> next(std::string* error);
  // Bytes of a frame begun but not complete: a peer that stops here left a truncated frame.
  size_t pending() const { return buf_.size(); }
  size_t capacity() const { return buf_.capacity(); }  // what the buffer holds on to

 private:
  std::string buf_;
  bool broken_ = false;
};

}  // namespace gnh::nri
