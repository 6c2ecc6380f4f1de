#include "vanon/http/http_server.h"

#include <httplib.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <charconv>
#include <chrono>
#include <stdexcept>
#include <thread>

namespace vanon::http {

bool SplitHostPort(const std::string& listen, std::string* host, int* port) {
  size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == listen.size()) return false;
  int p = -1;
  const char* b = listen.data() + colon + 1;
  const char* e = listen.data() + listen.size();
  auto r = std::from_chars(b, e, p);
  if (r.ec != std::errc() || r.ptr != e || p < 0 || p > 65535) return false;
  *host = listen.substr(0, colon);
  if (host->size() > 2 && host->front() == '[' && host->back() == ']') *host = host->substr(1, host->size() - 2);
  *port = p;
  return true;
}

struct HttpServer::Rep {
  httplib::Server server;
  std::thread thread;
  std::string host;
  int port = 0;
};

HttpServer::HttpServer(const std::string& listen, std::shared_ptr<prometheus::Registry> registry, HealthChecks checks)
    : rep_(std::make_unique<Rep>()) {
  int port = 0;
  if (!SplitHostPort(listen, &rep_->host, &port)) throw std::runtime_error("http.listen: bad address " + listen);

  // httplib's default also sets SO_REUSEPORT, which would let a second
  // instance bind the same port silently and split the scrapes between them.
  rep_->server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const void*>(&yes), sizeof yes);
  });
  rep_->server.Get("/metrics", [registry](const httplib::Request&, httplib::Response& res) {
    prometheus::TextSerializer ser;
    res.set_content(ser.Serialize(registry->Collect()), "text/plain; version=0.0.4; charset=utf-8");
  });
  auto probe = [](std::function<bool(std::string*)> check) {
    return [check](const httplib::Request&, httplib::Response& res) {
      std::string detail;
      bool ok = check ? check(&detail) : true;
      res.status = ok ? 200 : 503;
      res.set_content((ok ? "ok" : "not ok") + (detail.empty() ? "" : ": " + detail) + "\n", "text/plain");
    };
  };
  rep_->server.Get("/healthz", probe(checks.healthy));
  rep_->server.Get("/readyz", probe(checks.ready));

  if (port == 0) {
    rep_->port = rep_->server.bind_to_any_port(rep_->host);
    if (rep_->port < 0) throw std::runtime_error("http: cannot bind " + listen);
  } else {
    if (!rep_->server.bind_to_port(rep_->host, port)) throw std::runtime_error("http: cannot bind " + listen);
    rep_->port = port;
  }
  rep_->thread = std::thread([this] { rep_->server.listen_after_bind(); });
  // stop() before the loop starts is a no-op in httplib, and the loop would
  // then never end: wait until it runs so the destructor can always stop it.
  while (!rep_->server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

HttpServer::~HttpServer() {
  rep_->server.stop();
  if (rep_->thread.joinable()) rep_->thread.join();
}

int HttpServer::port() const { return rep_->port; }

std::string HttpServer::url() const { return "http://" + rep_->host + ":" + std::to_string(rep_->port); }

}  // namespace vanon::http
