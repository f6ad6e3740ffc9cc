#include <doctest/doctest.h>

#include <vector>

#include "base/error.h"
#include "wire/mux_frame.h"
#include "wire/ttrpc_frame.h"

using namespace gnh::nri;

TEST_CASE("ttrpc frame: header is length, stream id (big-endian), type, flags") {
  std::string f = encode_ttrpc_frame(0x01020304, TtrpcType::response, 0x4, "abc");
  CHECK(f == std::string("\x00\x00\x00\x03\x01\x02\x03\x04\x02\x04" "abc", 13));
}

TEST_CASE("ttrpc frame reader: frames split anywhere and joined come out whole") {
  std::string bytes = encode_ttrpc_frame(1, TtrpcType::request, 0, "hello") + encode_ttrpc_frame(3, TtrpcType::request, 0, "") +
                      encode_ttrpc_frame(5, TtrpcType::data, 2, std::string(70000, 'x'));
  for (size_t piece : {size_t(1), size_t(7), size_t(10), size_t(4096), bytes.size()}) {
    TtrpcFrameReader r;
    std::vector<TtrpcFrame> got;
    std::string error;
    for (size_t i = 0; i < bytes.size(); i += piece) {
      r.feed(std::string_view(bytes).substr(i, piece));
      while (auto f = r.next(&error)) got.push_back(*f);
      REQUIRE(error.empty());
    }
    REQUIRE(got.size() == 3);
    CHECK(got[0].stream_id == 1);
    CHECK(got[0].data == "hello");
    CHECK(got[1].stream_id == 3);
    CHECK(got[1].data.empty());
    CHECK(got[2].type == 3);
    CHECK(got[2].flags == 2);
    CHECK(got[2].data.size() == 70000);
    CHECK(r.pending() == 0);
  }
}

TEST_CASE("ttrpc frame reader: a truncated frame stays pending, never a frame") {
  std::string f = encode_ttrpc_frame(1, TtrpcType::request, 0, "hello");
  TtrpcFrameReader r;
  std::string error;
  r.feed(f.substr(0, f.size() - 1));
  CHECK_FALSE(r.next(&error));
  CHECK(error.empty());
  CHECK(r.pending() == f.size() - 1);
}

TEST_CASE("ttrpc frame reader: a length over 4 MiB is an error at the header, nothing buffered") {
  TtrpcFrameReader r;
  std::string error;
  r.feed(std::string("\x00\x40\x00\x01\x00\x00\x00\x01\x01\x00", 10));  // 4 MiB + 1
  CHECK_FALSE(r.next(&error));
  CHECK(error == "ttrpc: frame announces 4194305 bytes, over the 4 MiB limit");
  CHECK(r.pending() == 0);
  error.clear();
  r.feed(encode_ttrpc_frame(1, TtrpcType::request, 0, "x"));
  CHECK_FALSE(r.next(&error));  // broken for good: the stream's alignment is lost
  CHECK_FALSE(error.empty());
}

TEST_CASE("ttrpc frame: exactly 4 MiB is allowed, more cannot be encoded") {
  std::string data(kTtrpcMaxData, 'a');
  TtrpcFrameReader r;
  std::string error;
  r.feed(encode_ttrpc_frame(1, TtrpcType::request, 0, data));
  auto f = r.next(&error);
  REQUIRE(f);
  CHECK(f->data.size() == kTtrpcMaxData);
  CHECK_THROWS_AS(encode_ttrpc_frame(1, TtrpcType::request, 0, data + "b"), gnh::Error);
}

TEST_CASE("multiplexer: chunks carry the conn id, writes are split so each chunk fits 4096 bytes") {
  std::string small = encode_mux(2, "abc");
  CHECK(small == std::string("\x00\x00\x00\x02\x00\x00\x00\x03" "abc", 11));
  CHECK(encode_mux(1, "") == std::string("\x00\x00\x00\x01\x00\x00\x00\x00", 8));
  // A 4 MiB frame (the largest ttrpc allows): 1027 chunks, every one whole within 4096 bytes.
  std::string big;
  for (size_t i = 0; i < (4u << 20) + 10; ++i) big.push_back(char('a' + i % 26));
  std::string wire = encode_mux(1, big);
  CHECK(wire.size() == big.size() + kMuxHeaderSize * 1027);
  MuxReader r;
  r.feed(wire);
  std::string error, joined;
  size_t chunks = 0;
  while (auto c = r.next(&error)) {
    ++chunks;
    CHECK(c->conn == 1);
    REQUIRE(kMuxHeaderSize + c->payload.size() <= 4096);
    joined += c->payload;
  }
  CHECK(error.empty());
  CHECK(chunks == 1027);
  CHECK(joined == big);
  // Exactly one chunk's worth stays one chunk; one byte more makes two.
  CHECK(encode_mux(1, std::string(4088, 'x')).size() == 4096);
  CHECK(encode_mux(1, std::string(4089, 'x')).size() == 4096 + 9);
}

TEST_CASE("multiplexer: the reader still accepts the Go writer's chunks up to 10 + 4 MiB") {
  std::string payload(kMuxMaxPayload, 'q');
  std::string wire("\x00\x00\x00\x01", 4);
  wire += std::string("\x00\x40\x00\x0a", 4);  // 4 MiB + 10
  wire += payload;
  MuxReader r;
  r.feed(wire);
  std::string error;
  auto c = r.next(&error);
  REQUIRE(c);
  CHECK(c->payload.size() == kMuxMaxPayload);
  CHECK(error.empty());
}

TEST_CASE("multiplexer: conn 0 and over-limit lengths are errors") {
  std::string error;
  MuxReader zero;
  zero.feed(std::string("\x00\x00\x00\x00\x00\x00\x00\x01x", 9));
  CHECK_FALSE(zero.next(&error));
  CHECK(error == "multiplexer: chunk for reserved connection 0");
  MuxReader big;
  error.clear();
  big.feed(std::string("\x00\x00\x00\x01\x7f\xff\xff\xff", 8));
  CHECK_FALSE(big.next(&error));
  CHECK(error == "multiplexer: chunk announces 2147483647 bytes, over the limit");
  CHECK(big.pending() == 0);
}

TEST_CASE("readers: a multi-megabyte frame does not stay buffered once it came out") {
  std::string big(3u << 20, 'b');
  MuxReader mux;
  TtrpcFrameReader frames;
  std::string error;
  mux.feed(encode_mux(1, encode_ttrpc_frame(1, TtrpcType::request, 0, big)));
  while (auto c = mux.next(&error)) frames.feed(c->payload);
  auto f = frames.next(&error);
  REQUIRE(f);
  CHECK(f->data.size() == big.size());
  CHECK(mux.pending() == 0);
  CHECK(frames.pending() == 0);
  CHECK(mux.capacity() <= 64 * 1024);
  CHECK(frames.capacity() <= 64 * 1024);
}
