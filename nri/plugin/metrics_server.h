// gpu-numa-nri's Prometheus endpoint (--metrics-address): GET /metrics answered from a render
// function, in a thread of its own, so a slow or stuck scraper never delays an NRI call. HTTP is
// Boost.Beast's (Debian's libboost-dev, header-only: the plugin stays one static executable).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "plugin/metrics_address.h"

namespace gnh::nri {

// What one client may cost. The endpoint is on the pod network, where any pod can reach it: a flood
// of connections or slow clients must cost bounded memory, descriptors and CPU, and never starve
// the NRI connection, the state file or the heartbeat of descriptors.
struct MetricsLimits {
  // Connections served at once; past it the endpoint stops accepting (the kernel's backlog
  // holds the rest) until one ends. Each costs a descriptor and about 20 KiB.
  size_t max_connections = 16;
  // The whole request must arrive within this (a scrape is one small packet), and the answer
  // must be taken within write_timeout: a slow client is cut off, its slot freed.
  std::chrono::milliseconds request_timeout{2000};
  std::chrono::milliseconds write_timeout{5000};
  // Request line and headers together; more is not a scrape (Beast's own default is 8 KiB).
  size_t max_header_bytes = 4096;
};

// How long to wait before accepting again after `consecutive` accept failures for lack of
// descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM): retrying at once spun a core while
// the condition lasted. 50 ms, doubling, at most 1 s.
std::chrono::milliseconds accept_backoff(unsigned consecutive);

class MetricsServer {
 public:
  MetricsServer();
  ~MetricsServer();  // stops and joins
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // Binds, listens and starts the thread; `render` is called on that thread for each scrape and
  // returns the exposition text. False with *error (bind, listen) when it cannot serve.
  bool start(const MetricsAddress& at, std::function<std::string()> render, std::string* error,
             const MetricsLimits& limits = {});
  // The port bound (the one the system picked for port 0); 0 before start.
  unsigned short port() const;
  void stop();
  // Connections open now, and the most there ever were at once (what a flood reached).
  size_t open_connections() const;
  size_t peak_connections() const;
  // Accepts that failed for lack of descriptors or memory, each followed by a backoff.
  size_t accept_failures() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gnh::nri
