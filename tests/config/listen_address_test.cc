#include "listen_address.h"

#include <gtest/gtest.h>

namespace vanon::config::internal {
namespace {

TEST(ListenAddressTest, Accepts) {
  std::string host, why;
  int port = 0;
  ASSERT_TRUE(ParseListenAddress("127.0.0.1:9464", &host, &port, &why)) << why;
  EXPECT_EQ(host, "127.0.0.1");
  EXPECT_EQ(port, 9464);
  ASSERT_TRUE(ParseListenAddress("metrics.local:1", &host, &port, &why));
  EXPECT_EQ(host, "metrics.local");
  EXPECT_EQ(port, 1);
  ASSERT_TRUE(ParseListenAddress("[::]:65535", &host, &port, &why));
  EXPECT_EQ(host, "::");
  EXPECT_EQ(port, 65535);
}

TEST(ListenAddressTest, Rejects) {
  std::string host, why;
  int port = 0;
  for (const char* bad : {"127.0.0.1", ":9464", "host:", "host:0", "host:65536", "host:12a", "::1:80", "[zz]:80",
                          "a..b:80", "host name:80", "host:123456"}) {
    EXPECT_FALSE(ParseListenAddress(bad, &host, &port, &why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
}

}  // namespace
}  // namespace vanon::config::internal
