// gpu-numa-nri's Prometheus endpoint (--metrics-address): GET /metrics answered from a render
// function, in a thread of its own, so a slow or stuck scraper never delays an NRI call. HTTP is
// Boost.Beast's (Debian's libboost-dev, header-only: the plugin stays one static executable).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "plugin/metrics_address.h"

namespace gnh::nri {

class MetricsServer {
 public:
  MetricsServer();
  ~MetricsServer();  // stops and joins
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // Binds, listens and starts the thread; `render` is called on that thread for each scrape and
  // returns the exposition text. False with *error (bind, listen) when it cannot serve.
  bool start(const MetricsAddress& at, std::function<std::string()> render, std::string* error);
  // The port bound (the one the system picked for port 0); 0 before start.
  unsigned short port() const;
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gnh::nri
