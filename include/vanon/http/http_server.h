// The service's HTTP face: /metrics (Prometheus text format), /healthz
// (the process is alive and its loop is turning), /readyz (state open and
// input partitions assigned, and the input topic has the partition count
// state was written with). Binds where the config says; 127.0.0.1 by default.
#ifndef VANON_HTTP_HTTP_SERVER_H_
#define VANON_HTTP_HTTP_SERVER_H_

#include <functional>
#include <memory>
#include <string>

namespace prometheus {
class Registry;
}

namespace vanon::http {

struct HealthChecks {
  // Each returns true when fine and may fill a short, identifier-free detail.
  std::function<bool(std::string* detail)> healthy;
  std::function<bool(std::string* detail)> ready;
};

class HttpServer {
 public:
  // listen is "host:port"; port 0 picks a free port. Throws if it cannot bind.
  HttpServer(const std::string& listen, std::shared_ptr<prometheus::Registry> registry, HealthChecks checks);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const;
  std::string url() const;

 private:
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

// Splits "host:port"; false when malformed or port outside 0..65535.
bool SplitHostPort(const std::string& listen, std::string* host, int* port);

}  // namespace vanon::http

#endif  // VANON_HTTP_HTTP_SERVER_H_
