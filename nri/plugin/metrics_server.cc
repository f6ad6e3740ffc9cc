#include "plugin/metrics_server.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <chrono>
#include <thread>

namespace gnh::nri {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

// A scrape is one small request: a client that takes longer than this is cut off, so no
// connection holds the thread's resources for long.
constexpr auto kIoTimeout = std::chrono::seconds(10);

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket s, const std::function<std::string()>& render) : stream_(std::move(s)), render_(render) {}
  void run() {
    parser_.body_limit(4096);  // a GET has no body; anything bigger is not a scrape
    stream_.expires_after(kIoTimeout);
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
    stream_.expires_after(kIoTimeout);
    http::async_write(stream_, res_, [self = shared_from_this()](beast::error_code, size_t) {
      beast::error_code ignored;
      self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    });
  }
  beast::tcp_stream stream_;
  const std::function<std::string()>& render_;
  beast::flat_buffer buf_{8192};
  http::request_parser<http::empty_body> parser_;
  http::response<http::string_body> res_;
};

}  // namespace

struct MetricsServer::Impl {
  std::function<std::string()> render;  // first: outlives the handlers that refer to it
  asio::io_context ioc{1};
  tcp::acceptor acceptor{ioc};
  std::thread thread;
  unsigned short port = 0;

  void accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket s) {
      if (!acceptor.is_open()) return;
      if (!ec) std::make_shared<Connection>(std::move(s), render)->run();
      accept();  // a failed accept (out of descriptors) must not end the endpoint
    });
  }
};

MetricsServer::MetricsServer() : impl_(std::make_unique<Impl>()) {}
MetricsServer::~MetricsServer() { stop(); }

bool MetricsServer::start(const MetricsAddress& at, std::function<std::string()> render, std::string* error) {
  Impl& i = *impl_;
  i.render = std::move(render);
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

void MetricsServer::stop() {
  Impl& i = *impl_;
  if (!i.thread.joinable()) return;
  asio::post(i.ioc, [&i] {
    beast::error_code ignored;
    i.acceptor.close(ignored);
  });
  i.ioc.stop();
  i.thread.join();
}

}  // namespace gnh::nri
