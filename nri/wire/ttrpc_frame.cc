#include "wire/ttrpc_frame.h"

#include "base/error.h"
#include "wire/byte_order.h"

namespace gnh::nri {

std::string encode_ttrpc_frame(uint32_t stream_id, TtrpcType type, uint8_t flags, std::string_view data) {
  if (data.size() > kTtrpcMaxData)
    fail("ttrpc: a message of " + std::to_string(data.size()) + " bytes is over the 4 MiB limit");
  std::string out;
  out.reserve(kTtrpcHeaderSize + data.size());
  append_be32(&out, uint32_t(data.size()));
  append_be32(&out, stream_id);
  out.push_back(char(type));
  out.push_back(char(flags));
  out.append(data);
  return out;
}

std::optional<TtrpcFrame> TtrpcFrameReader::next(std::string* error) {
  if (broken_) {
    *error = "ttrpc: stream already failed";
    return std::nullopt;
  }
  if (buf_.size() < kTtrpcHeaderSize) return std::nullopt;
  uint32_t length = read_be32(buf_, 0);
  if (length > kTtrpcMaxData) {
    broken_ = true;
    buf_.clear();
    *error = "ttrpc: frame announces " + std::to_string(length) + " bytes, over the 4 MiB limit";
    return std::nullopt;
  }
  if (buf_.size() < kTtrpcHeaderSize + length) return std::nullopt;
  TtrpcFrame f;
  f.stream_id = read_be32(buf_, 4);
  f.type = uint8_t(buf_[8]);
  f.flags = uint8_t(buf_[9]);
  f.data.assign(buf_, kTtrpcHeaderSize, length);
  buf_.erase(0, kTtrpcHeaderSize + length);
  // A Synchronize of megabytes must not stay resident for the connection's life.
  if (buf_.empty() && buf_.capacity() > 64 * 1024) std::string().swap(buf_);
  return f;
}

}  // namespace gnh::nri
