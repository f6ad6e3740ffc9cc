#include "plugin/metrics_server.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <thread>

namespace gnh::nri {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

std::chrono::milliseconds accept_backoff(unsigned consecutive) {
  if (consecutive == 0) return std::chrono::milliseconds(0);
  const unsigned doublings = std::min(consecutive - 1, 5u);
  return std::min(std::chrono::milliseconds(50) * (1u << doublings), std::chrono::milliseconds(1000));
}

namespace {

// A connection's hold on its slot: released when the connection ends, however it ends (answered,
// timed out, malformed, reset), which lets the acceptor take the next one.
class Slot {
 public:
  explicit Slot(std::function<void()> release) : release_(std::move(release)) {}
  ~Slot() { release_(); }
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;

 private:
  std::function<void()> release_;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket s, const std::function<std::string()>& render, const MetricsLimits& limits,
             std::function<void()> release)
      : stream_(std::move(s)), render_(render), limits_(limits), slot_(std::move(release)) {}
  void run() {
    parser_.header_limit(static_cast<std::uint32_t>(limits_.max_header_bytes));
    parser_.body_limit(4096);  // a GET has no body; anything bigger is not a scrape
    stream_.expires_after(limits_.request_timeout);
    // Malformed, too large or too slow: no answer, the connection just ends.
    http::async_read(stream_, buf_, parser_, [self = shared_from_this()](beast::error_code ec, size_t) {
      if (!ec) self->answer();
    });
  }

 private:
  void answer() {
    const auto& req = parser_.get();
    res_.version(req.version());
    res_.keep_alive(false);
    res_.set(http::field::server, "gpu-numa-nri");
    if (req.method() != http::verb::get && req.method() != http::verb::head) {
      res_.result(http::status::method_not_allowed);
      res_.set(http::field::allow, "GET, HEAD");
      res_.body() = "GET /metrics\n";
    } else if (req.target() == "/metrics" || req.target().starts_with("/metrics?")) {
      res_.result(http::status::ok);
      res_.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
      res_.body() = render_();
      if (req.method() == http::verb::head) res_.body().clear();
    } else {
      res_.result(http::status::not_found);
      res_.body() = "gpu-numa-nri serves its metrics at /metrics\n";
    }
    res_.prepare_payload();
    stream_.expires_after(limits_.write_timeout);
    http::async_write(stream_, res_, [self = shared_from_this()](beast::error_code, size_t) {
      beast::error_code ignored;
      self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    });
  }
  beast::tcp_stream stream_;
  const std::function<std::string()>& render_;
  const MetricsLimits& limits_;
  Slot slot_;
  beast::flat_buffer buf_{8192};
  http::request_parser<http::empty_body> parser_;
  http::response<http::string_body> res_;
};

bool lacks_resources(const beast::error_code& ec) {
  const int e = ec.value();
  return ec.category() == boost::system::system_category() && (e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM);
}

}  // namespace

// Everything below runs on the endpoint's one thread; the counters are atomic only for readers
// on other threads (tests, the plugin's own metrics).
struct MetricsServer::Impl {
  // Declared before ioc: its destructor destroys the connections still pending, which read these.
  std::function<std::string()> render;
  MetricsLimits limits;
  std::atomic<size_t> open{0}, peak{0}, failures{0};
  std::atomic<bool> stopping{false};
  bool accepting = false;  // an async_accept (or its backoff) is pending
  unsigned failures_in_a_row = 0;
  asio::io_context ioc{1};
  tcp::acceptor acceptor{ioc};
  asio::steady_timer backoff{ioc};
  std::thread thread;
  unsigned short port = 0;

  // One accept at a time, only while a slot is free: past the cap, new clients wait in the
  // kernel's backlog, costing us nothing, until a connection ends.
  void accept() {
    if (accepting || !acceptor.is_open() || open.load() >= limits.max_connections) return;
    accepting = true;
    acceptor.async_accept([this](beast::error_code ec, tcp::socket s) {
      accepting = false;
      if (!acceptor.is_open()) return;
      if (ec && lacks_resources(ec)) {
        ++failures;
        ++failures_in_a_row;
        accepting = true;
        backoff.expires_after(accept_backoff(failures_in_a_row));
        backoff.async_wait([this](beast::error_code) {
          accepting = false;
          accept();
        });
        return;
      }
      if (!ec) {
        failures_in_a_row = 0;
        const size_t now = ++open;
        if (now > peak.load()) peak = now;
        std::make_shared<Connection>(std::move(s), render, limits, [this] {
          --open;
          // posted: the connection is being destroyed inside its own handler
          if (!stopping) asio::post(ioc, [this] { accept(); });
        })->run();
      }
      accept();  // any other failed accept (the client gave up) must not end the endpoint
    });
  }
};

MetricsServer::MetricsServer() : impl_(std::make_unique<Impl>()) {}
MetricsServer::~MetricsServer() { stop(); }

bool MetricsServer::start(const MetricsAddress& at, std::function<std::string()> render, std::string* error,
                          const MetricsLimits& limits) {
  Impl& i = *impl_;
  i.render = std::move(render);
  i.limits = limits;
  beast::error_code ec;
  auto addr = asio::ip::make_address(at.host, ec);
  tcp::endpoint ep(addr, at.port);
  const char* step = "address";
  if (!ec) step = "open", i.acceptor.open(ep.protocol(), ec);
  if (!ec) step = "reuse_address", i.acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) step = "bind", i.acceptor.bind(ep, ec);
  if (!ec) step = "listen", i.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    *error = std::string("cannot ") + step + " " + at.display() + ": " + ec.message();
    beast::error_code ignored;
    i.acceptor.close(ignored);
    return false;
  }
  i.port = i.acceptor.local_endpoint(ec).port();
  i.accept();
  i.thread = std::thread([&i] { i.ioc.run(); });
  return true;
}

unsigned short MetricsServer::port() const { return impl_->port; }
size_t MetricsServer::open_connections() const { return impl_->open.load(); }
size_t MetricsServer::peak_connections() const { return impl_->peak.load(); }
size_t MetricsServer::accept_failures() const { return impl_->failures.load(); }

void MetricsServer::stop() {
  Impl& i = *impl_;
  i.stopping = true;
  if (!i.thread.joinable()) return;
  asio::post(i.ioc, [&i] {
    beast::error_code ignored;
    i.acceptor.close(ignored);
    i.backoff.cancel();
  });
  i.ioc.stop();
  i.thread.join();
}

}  // namespace gnh::nri
