#include "plugin/metrics_address.h"

#include <doctest/doctest.h>

using namespace gnh::nri;

TEST_CASE("--metrics-address: IPv4, IPv6 in brackets, every address, and what is refused") {
  std::string err;
  auto a = parse_metrics_address("127.0.0.1:9464", &err);
  REQUIRE(a);
  CHECK(a->host == "127.0.0.1");
  CHECK(a->port == 9464);
  CHECK(a->display() == "127.0.0.1:9464");
  a = parse_metrics_address("[::1]:80", &err);
  REQUIRE(a);
  CHECK(a->host == "::1");
  CHECK(a->display() == "[::1]:80");
  a = parse_metrics_address(":9464", &err);
  REQUIRE(a);
  CHECK(a->host == "0.0.0.0");
  a = parse_metrics_address("127.0.0.1:0", &err);
  REQUIRE(a);
  CHECK(a->port == 0);

  for (const char* bad : {"9464", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:94x", "::1:9464", "localhost:9464",
                          "10.0.0.300:1"}) {
    err.clear();
    CHECK_MESSAGE(!parse_metrics_address(bad, &err), bad);
    CHECK(err.find("--metrics-address") == 0);
  }
  parse_metrics_address("localhost:9464", &err);
  CHECK(err == "--metrics-address 'localhost:9464': 'localhost' is not an IP address (names are not resolved)");
}
