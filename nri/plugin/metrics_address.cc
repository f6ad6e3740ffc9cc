#include "plugin/metrics_address.h"

#include <arpa/inet.h>

#include <charconv>

namespace gnh::nri {

std::string MetricsAddress::display() const {
  return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::optional<MetricsAddress> parse_metrics_address(std::string_view text, std::string* error) {
  auto bad = [&](const std::string& why) {
    *error = "--metrics-address '" + std::string(text) + "': " + why;
    return std::nullopt;
  };
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return bad("expected HOST:PORT, [IPV6]:PORT or :PORT");
  std::string_view host = text.substr(0, colon), port = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  else if (host.find(':') != std::string_view::npos) return bad("an IPv6 address goes in brackets: [::1]:PORT");
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value > 65535)
    return bad("the port is not a number from 0 to 65535");
  MetricsAddress a{host.empty() ? "0.0.0.0" : std::string(host), uint16_t(value)};
  unsigned char buf[16];
  if (inet_pton(AF_INET, a.host.c_str(), buf) != 1 && inet_pton(AF_INET6, a.host.c_str(), buf) != 1)
    return bad("'" + a.host + "' is not an IP address (names are not resolved)");
  return a;
}

}  // namespace gnh::nri
