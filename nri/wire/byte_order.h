// Big-endian uint32, as both framings on an NRI socket write their headers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gnh::nri {

inline uint32_t read_be32(std::string_view b, size_t at) {
  return (uint32_t(uint8_t(b[at])) << 24) | (uint32_t(uint8_t(b[at + 1])) << 16) |
         (uint32_t(uint8_t(b[at + 2])) << 8) | uint32_t(uint8_t(b[at + 3]));
}

inline void append_be32(std::string* out, uint32_t v) {
  out->push_back(char(v >> 24));
  out->push_back(char(v >> 16));
  out->push_back(char(v >> 8));
  out->push_back(char(v));
}

}  // namespace gnh::nri
