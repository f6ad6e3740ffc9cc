#include "wire/mux_frame.h"

#include "wire/byte_order.h"

namespace gnh::nri {

std::string encode_mux(uint32_t conn, std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() + kMuxHeaderSize * (1 + bytes.size() / kMuxMaxWritePayload));
  do {
    size_t n = std::min(bytes.size(), kMuxMaxWritePayload);
    append_be32(&out, conn);
    append_be32(&out, uint32_t(n));
    out.append(bytes.substr(0, n));
    bytes.remove_prefix(n);
  } while (!bytes.empty());
  return out;
}

std::optional<MuxChunk> MuxReader::next(std::string* error) {
  if (broken_) {
    *error = "multiplexer: stream already failed";
    return std::nullopt;
  }
  if (buf_.size() < kMuxHeaderSize) return std::nullopt;
  uint32_t conn = read_be32(buf_, 0);
  uint32_t length = read_be32(buf_, 4);
  if (conn == 0 || length > kMuxMaxPayload) {
    broken_ = true;
    buf_.clear();
    *error = conn == 0 ? "multiplexer: chunk for reserved connection 0"
                       : "multiplexer: chunk announces " + std::to_string(length) + " bytes, over the limit";
    return std::nullopt;
  }
  if (buf_.size() < kMuxHeaderSize + length) return std::nullopt;
  MuxChunk c;
  c.conn = conn;
  c.payload.assign(buf_, kMuxHeaderSize, length);
  buf_.erase(0, kMuxHeaderSize + length);
  // A Synchronize of megabytes must not stay resident for the connection's life.
  if (buf_.empty() && buf_.capacity() > 64 * 1024) std::string().swap(buf_);
  return c;
}

}  // namespace gnh::nri
