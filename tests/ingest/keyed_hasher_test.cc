#include "vanon/ingest/keyed_hasher.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace vanon::ingest {
namespace {

// RFC 4231 section 4.2, 4.3 and 4.7 (HMAC-SHA-256 rows).
TEST(KeyedHasherTest, Rfc4231TestCase1) {
  KeyedHasher hasher(std::string(20, '\x0b'));
  EXPECT_EQ(hasher.HashHex("Hi There"), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
}

TEST(KeyedHasherTest, Rfc4231TestCase2) {
  KeyedHasher hasher("Jefe");
  EXPECT_EQ(hasher.HashHex("what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(KeyedHasherTest, Rfc4231TestCase6KeyLargerThanBlock) {
  KeyedHasher hasher(std::string(131, '\xaa'));
  EXPECT_EQ(hasher.HashHex("Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST(KeyedHasherTest, RepeatedCallsAreIndependent) {
  KeyedHasher hasher("Jefe");
  const HmacToken first = hasher.Hash("WDCGG8HB0AF462890");
  hasher.Hash("something else in between");
  EXPECT_EQ(hasher.Hash("WDCGG8HB0AF462890"), first);
  EXPECT_NE(hasher.Hash("WDCGG8HB0AF462891"), first);
}

TEST(KeyedHasherTest, DifferentKeysGiveDifferentTokens) {
  KeyedHasher a("secret-a");
  KeyedHasher b("secret-b");
  EXPECT_NE(a.Hash("WDCGG8HB0AF462890"), b.Hash("WDCGG8HB0AF462890"));
}

TEST(KeyedHasherTest, RejectsEmptyKey) { EXPECT_THROW(KeyedHasher(""), std::invalid_argument); }

TEST(KeyedHasherTest, HexIsLowerCaseAndFixedWidth) {
  HmacToken token{};
  token[0] = 0xAB;
  token[31] = 0x01;
  const std::string hex = HmacTokenHex(token);
  EXPECT_EQ(hex.size(), 64u);
  EXPECT_EQ(hex.substr(0, 2), "ab");
  EXPECT_EQ(hex.substr(62, 2), "01");
  EXPECT_EQ(hex.substr(2, 60), std::string(60, '0'));
}

// A trip id that equals a VIN must not give that vehicle's token.
TEST(KeyedHasherTest, TripTokensAreSeparateFromVehicleTokens) {
  KeyedHasher hasher("0123456789abcdef0123456789abcdef");
  const std::string vin = "WDCGG8HB0AF462890";
  EXPECT_NE(hasher.HashTrip(vin), hasher.Hash(vin));
  EXPECT_EQ(hasher.HashTrip(vin), hasher.Hash(std::string(KeyedHasher::kTripDomain) + vin));
  EXPECT_EQ(hasher.HashTrip("t1"), hasher.HashTrip("t1"));
  EXPECT_NE(hasher.HashTrip("t1"), hasher.HashTrip("t2"));
}

}  // namespace
}  // namespace vanon::ingest
