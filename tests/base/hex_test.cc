#include "base/hex.h"

#include <gtest/gtest.h>

#include <string>

namespace vanon::base {
namespace {

TEST(HexTest, EncodesLowerCaseHighNibbleFirst) {
  EXPECT_EQ(HexEncode(std::string("\x00\x0f\xa0\xff", 4)), "000fa0ff");
  EXPECT_EQ(HexEncode(""), "");
  std::string out = "id-";
  AppendHex(&out, "\x12");
  EXPECT_EQ(out, "id-12");
}

TEST(HexTest, Hex64IsSixteenDigits) {
  std::string out;
  AppendHex64(&out, 0xabc);
  EXPECT_EQ(out, "0000000000000abc");
  out.clear();
  AppendHex64(&out, ~uint64_t{0});
  EXPECT_EQ(out, "ffffffffffffffff");
}

TEST(HexTest, DecodeRoundTripsAndRefusesBadInput) {
  const std::string bytes("\x00\x01\x7f\x80\xfe\xff", 6);
  std::string back;
  ASSERT_TRUE(HexDecode(HexEncode(bytes), &back));
  EXPECT_EQ(back, bytes);
  EXPECT_FALSE(HexDecode("abc", &back));  // odd length
  EXPECT_FALSE(HexDecode("0g", &back));   // not a digit
  EXPECT_FALSE(HexDecode("AB", &back));   // upper case is not what we write
}

}  // namespace
}  // namespace vanon::base
