#include "base/coding.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace vanon::base {
namespace {

TEST(CodingTest, Fixed64IsLittleEndian) {
  std::string s;
  PutFixed64(&s, 0x0102030405060708ull);
  EXPECT_EQ(s, std::string("\x08\x07\x06\x05\x04\x03\x02\x01", 8));
  EXPECT_EQ(DecodeFixed64(s.data()), 0x0102030405060708ull);
  std::string_view in = s;
  uint64_t v = 0;
  ASSERT_TRUE(GetFixed64(&in, &v));
  EXPECT_EQ(v, 0x0102030405060708ull);
  EXPECT_TRUE(in.empty());
  in = std::string_view(s).substr(0, 7);
  EXPECT_FALSE(GetFixed64(&in, &v));
}

TEST(CodingTest, VarintRoundTripsAtEveryLengthBoundary) {
  std::vector<uint64_t> values = {0, 1, 127, 128, 16383, 16384, UINT32_MAX, std::numeric_limits<uint64_t>::max()};
  for (int shift = 0; shift < 64; ++shift) values.push_back(uint64_t{1} << shift);
  std::string s;
  for (uint64_t v : values) PutVarint64(&s, v);
  std::string_view in = s;
  for (uint64_t v : values) {
    uint64_t got = 0;
    ASSERT_TRUE(GetVarint64(&in, &got)) << v;
    EXPECT_EQ(got, v);
  }
  EXPECT_TRUE(in.empty());
}

TEST(CodingTest, VarintBytesAreLeb128) {
  std::string s;
  PutVarint64(&s, 300);
  EXPECT_EQ(s, "\xac\x02");
  s.clear();
  PutVarint64(&s, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(s, std::string(9, '\xff') + "\x01");
}

TEST(CodingTest, VarintRefusesTruncatedOverlongAndNonMinimal) {
  uint64_t v;
  std::string_view truncated("\x80\x80", 2);
  EXPECT_FALSE(GetVarint64(&truncated, &v));
  std::string_view too_big(std::string(9, '\xff') + "\x02");
  const std::string eleven = std::string(10, '\x80') + "\x01";
  std::string_view eleven_view = eleven;
  EXPECT_FALSE(GetVarint64(&eleven_view, &v));
  const std::string top = std::string(9, '\xff') + "\x02";
  std::string_view top_view = top;
  EXPECT_FALSE(GetVarint64(&top_view, &v));
  std::string_view non_minimal("\x81\x00", 2);
  EXPECT_FALSE(GetVarint64(&non_minimal, &v));
  std::string_view zero("\x00", 1);
  ASSERT_TRUE(GetVarint64(&zero, &v));
  EXPECT_EQ(v, 0u);
}

TEST(CodingTest, SignedVarintUsesZigZag) {
  EXPECT_EQ(ZigZag(0), 0u);
  EXPECT_EQ(ZigZag(-1), 1u);
  EXPECT_EQ(ZigZag(1), 2u);
  EXPECT_EQ(ZigZag(-2), 3u);
  const std::vector<int64_t> values = {0, -1, 1, -64, 64, INT32_MIN, INT32_MAX, INT64_MIN, INT64_MAX};
  std::string s;
  for (int64_t v : values) PutSignedVarint64(&s, v);
  ByteReader r(s);
  for (int64_t v : values) {
    int64_t got = 0;
    ASSERT_TRUE(r.GetSignedVarint64(&got));
    EXPECT_EQ(got, v);
  }
  EXPECT_TRUE(r.done());
}

TEST(CodingTest, NarrowGettersRefuseWideValues) {
  std::string s;
  PutVarint64(&s, uint64_t{UINT32_MAX} + 1);
  PutSignedVarint64(&s, int64_t{INT32_MIN} - 1);
  ByteReader r(s);
  uint32_t u;
  EXPECT_FALSE(r.GetVarint32(&u));
  ByteReader r2(std::string_view(s).substr(5));
  int32_t i;
  EXPECT_FALSE(r2.GetSignedVarint32(&i));
}

TEST(CodingTest, LengthPrefixedAndCounts) {
  std::string s;
  PutLengthPrefixed(&s, "abc");
  PutLengthPrefixed(&s, "");
  PutVarint64(&s, 5);  // a count larger than what follows
  ByteReader r(s);
  std::string_view a, b;
  ASSERT_TRUE(r.GetLengthPrefixed(&a));
  ASSERT_TRUE(r.GetLengthPrefixed(&b));
  EXPECT_EQ(a, "abc");
  EXPECT_EQ(b, "");
  uint32_t n;
  EXPECT_FALSE(r.GetCount(&n));

  std::string lying;
  PutVarint64(&lying, 10);
  lying += "short";
  std::string_view in = lying;
  std::string_view out;
  EXPECT_FALSE(GetLengthPrefixed(&in, &out));
}

TEST(CodingTest, BigEndianSortsNumerically) {
  std::string a, b;
  PutBigEndian64(&a, 255);
  PutBigEndian64(&b, 256);
  EXPECT_LT(a, b);
  EXPECT_EQ(a, std::string("\0\0\0\0\0\0\0\xff", 8));
  std::string c;
  PutBigEndian32(&c, 0x01020304);
  EXPECT_EQ(c, "\x01\x02\x03\x04");
  EXPECT_EQ(DecodeBigEndian(c, 0, 4), 0x01020304u);
  EXPECT_EQ(DecodeBigEndian(a + c, 8, 4), 0x01020304u);
  EXPECT_EQ(DecodeBigEndian(b, 0, 8), 256u);
}

TEST(CodingTest, ByteReaderBytesAndByte) {
  ByteReader r(std::string_view("\x07xyz", 4));
  uint8_t byte = 0;
  ASSERT_TRUE(r.GetByte(&byte));
  EXPECT_EQ(byte, 7);
  std::string_view bytes;
  EXPECT_FALSE(r.GetBytes(4, &bytes));
  ASSERT_TRUE(r.GetBytes(3, &bytes));
  EXPECT_EQ(bytes, "xyz");
  EXPECT_FALSE(r.GetByte(&byte));
  EXPECT_EQ(r.remaining(), 0u);
}

}  // namespace
}  // namespace vanon::base
