#include "vanon/seal/keyring.h"

#include <gtest/gtest.h>

namespace vanon::seal {
namespace {

const std::string kHexA(64, 'a');
const std::string kHexB = "00112233445566778899AABBCCDDEEFF00112233445566778899aabbccddeeff";

TEST(Keyring, FirstKeySealsEveryKeyOpens) {
  std::string error;
  std::optional<Keyring> r = Keyring::Parse(" k2:" + kHexB + " , k1:" + kHexA + "\n", &error);
  ASSERT_TRUE(r) << error;
  EXPECT_EQ(r->active().id, "k2");
  EXPECT_EQ(r->active().bytes.size(), 32u);
  EXPECT_EQ(static_cast<unsigned char>(r->active().bytes[10]), 0xAAu);  // upper-case hex accepted
  ASSERT_NE(r->Find("k1"), nullptr);
  EXPECT_EQ(r->Find("k1")->bytes, std::string(32, '\xaa'));
  EXPECT_EQ(r->Find("k3"), nullptr);
}

TEST(Keyring, RefusesBadSecretsWithoutEchoingThem) {
  const std::string secret = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd";  // 62 digits
  for (const std::string& text :
       {std::string(), std::string("  "), "k1" + kHexA, "k1:" + secret, "bad id:" + kHexA,
        "k1:" + kHexA + ",k1:" + kHexA, std::string(33, 'x') + ":" + kHexA, "k1:" + std::string(63, 'a') + "g"}) {
    std::string error;
    EXPECT_FALSE(Keyring::Parse(text, &error)) << text;
    EXPECT_FALSE(error.empty());
    EXPECT_EQ(error.find(secret), std::string::npos);
    EXPECT_EQ(error.find(kHexA), std::string::npos);
  }
}

TEST(Keyring, RandomRingsDiffer) {
  Keyring a = Keyring::Random("demo"), b = Keyring::Random("demo");
  EXPECT_EQ(a.active().id, "demo");
  EXPECT_NE(a.active().bytes, b.active().bytes);
}

}  // namespace
}  // namespace vanon::seal
