// --metrics-address HOST:PORT, parsed. Pure. Numeric addresses only: the plugin is a static
// executable, and name resolution there would need the host's NSS libraries.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gnh::nri {

struct MetricsAddress {
  std::string host;    // "0.0.0.0", "127.0.0.1", "::1" (without brackets)
  uint16_t port = 0;   // 0: any free port (the log line names the one bound)
  std::string display() const;  // "127.0.0.1:9464", "[::1]:9464"
};

// "HOST:PORT", "[IPV6]:PORT" or ":PORT" (every IPv4 address). nullopt and *error when not one.
std::optional<MetricsAddress> parse_metrics_address(std::string_view text, std::string* error);

}  // namespace gnh::nri
