#include "vanon/http/http_server.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <prometheus/counter.h>
#include <prometheus/registry.h>

#include <atomic>

namespace vanon::service {
namespace {

TEST(SplitHostPort, AcceptsAndRejects) {
  std::string host;
  int port = 0;
  EXPECT_TRUE(http::SplitHostPort("127.0.0.1:9464", &host, &port));
  EXPECT_EQ(host, "127.0.0.1");
  EXPECT_EQ(port, 9464);
  EXPECT_TRUE(http::SplitHostPort("[::1]:80", &host, &port));
  EXPECT_EQ(host, "::1");
  EXPECT_FALSE(http::SplitHostPort("127.0.0.1", &host, &port));
  EXPECT_FALSE(http::SplitHostPort("127.0.0.1:", &host, &port));
  EXPECT_FALSE(http::SplitHostPort(":80", &host, &port));
  EXPECT_FALSE(http::SplitHostPort("h:70000", &host, &port));
  EXPECT_FALSE(http::SplitHostPort("h:12x", &host, &port));
}

TEST(HttpServer, ServesMetricsAndProbes) {
  auto registry = std::make_shared<prometheus::Registry>();
  prometheus::BuildCounter().Name("vanon_test_total").Help("t").Register(*registry).Add({}).Increment(3);
  std::atomic<bool> ready{false};
  http::HealthChecks checks;
  checks.healthy = [](std::string*) { return true; };
  checks.ready = [&](std::string* d) {
    if (!ready) *d = "no partitions";
    return ready.load();
  };
  http::HttpServer server("127.0.0.1:0", registry, checks);
  ASSERT_GT(server.port(), 0);
  httplib::Client cli("127.0.0.1", server.port());
  auto m = cli.Get("/metrics");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->status, 200);
  EXPECT_NE(m->body.find("vanon_test_total 3"), std::string::npos) << m->body;
  auto h = cli.Get("/healthz");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->status, 200);
  auto r = cli.Get("/readyz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  EXPECT_NE(r->body.find("no partitions"), std::string::npos);
  ready = true;
  r = cli.Get("/readyz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST(HttpServer, RefusesAnAddressInUse) {
  auto registry = std::make_shared<prometheus::Registry>();
  http::HttpServer first("127.0.0.1:0", registry, {});
  EXPECT_THROW(http::HttpServer("127.0.0.1:" + std::to_string(first.port()), registry, {}), std::runtime_error);
}

}  // namespace
}  // namespace vanon::service
