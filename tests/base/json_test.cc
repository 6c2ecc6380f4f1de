#include "base/json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

namespace vanon::base {
namespace {

std::string Quoted(std::string_view s) {
  std::string out;
  AppendJsonString(&out, s);
  return out;
}

TEST(JsonTest, EscapesQuotesBackslashesAndControls) {
  EXPECT_EQ(Quoted("plain"), "\"plain\"");
  EXPECT_EQ(Quoted("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(Quoted("l1\nl2\r\t"), R"("l1\nl2\r\t")");
  EXPECT_EQ(Quoted(std::string("\x00\x01\x1f", 3)), R"("\u0000\u0001\u001f")");
  EXPECT_EQ(Quoted("caf\xc3\xa9"), "\"caf\xc3\xa9\"");  // UTF-8 passes through
  EXPECT_EQ(Quoted("\x7f"), "\"\x7f\"");
}

// Strings of every length around the 16-byte blocks, with the bytes that
// must be escaped (and their neighbours 0x20, 0x7f, 0x80, 0xff) at every
// position: quoted whole, they read as the byte-by-byte escape does.
TEST(JsonTest, QuotedStringsOfAnyLengthEscapeEveryByteAsOneByOne) {
  const std::string pool = std::string("ab\"\\\x00\x01\x1f\x20\x7f\x80\xff\n", 12);
  std::mt19937 rng(7);
  for (size_t len = 0; len <= 70; ++len) {
    for (int trial = 0; trial < 40; ++trial) {
      std::string s(len, 'x');
      const int specials = trial % 4;  // none, one, two or three
      for (int k = 0; k < specials && len > 0; ++k) s[rng() % len] = pool[rng() % pool.size()];
      std::string expected = "\"";
      AppendJsonEscaped(&expected, s);
      expected.push_back('"');
      ASSERT_EQ(Quoted(s), expected) << "length " << len << " trial " << trial;
    }
  }
}

TEST(JsonTest, FirstToEscapeFindsTheFirstSuchByteFromAnyStart) {
  std::string s(40, 'q');
  s[3] = '"';
  s[17] = '\x05';
  s[33] = '\\';
  EXPECT_EQ(FirstToEscape(s, 0), 3u);
  EXPECT_EQ(FirstToEscape(s, 4), 17u);
  EXPECT_EQ(FirstToEscape(s, 18), 33u);
  EXPECT_EQ(FirstToEscape(s, 34), s.size());
  EXPECT_EQ(FirstToEscape(std::string(40, '\x80'), 0), 40u);
  // The last block of a long string overlaps bytes before `from`; a short
  // string is read through a padded copy: bytes before `from` never count.
  std::string tail(20, 'q');
  tail[5] = '"';
  tail[18] = '\\';
  EXPECT_EQ(FirstToEscape(tail, 6), 18u);
  EXPECT_EQ(FirstToEscape(tail, 16), 18u);
  EXPECT_EQ(FirstToEscape(tail, 19), tail.size());
  EXPECT_EQ(FirstToEscape("a\"bc\\d", 2), 4u);
  EXPECT_EQ(FirstToEscape("a\"bc\\d", 5), 6u);
  EXPECT_EQ(FirstToEscape(std::string("ab\0", 3), 0), 2u);
}

// The logger escapes into fmt's buffer with the same function.
TEST(JsonTest, EscapesIntoAnyPushBackSink) {
  fmt::memory_buffer buf;
  AppendJsonEscaped(&buf, "say \"hi\"\n");
  EXPECT_EQ(fmt::to_string(buf), R"(say \"hi\"\n)");
}

TEST(JsonTest, NumbersAreShortestAndNeverNaN) {
  std::string out;
  AppendJsonDouble(&out, 0.1);
  out.push_back(' ');
  AppendJsonDouble(&out, 2.0);
  out.push_back(' ');
  AppendJsonDouble(&out, std::numeric_limits<double>::quiet_NaN());
  out.push_back(' ');
  AppendJsonDouble(&out, -std::numeric_limits<double>::infinity());
  out.push_back(' ');
  AppendJsonInt(&out, int64_t{-42});
  EXPECT_EQ(out, "0.1 2 null null -42");
}

TEST(JsonTest, IntegersAsFmtWritesThem) {
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{7}, int64_t{1795412460000}, std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max()}) {
    std::string out = "x";
    AppendJsonInt(&out, v);
    EXPECT_EQ(out, "x" + fmt::format("{}", v));
  }
  std::string out;
  AppendJsonInt(&out, std::numeric_limits<uint64_t>::max());
  AppendJsonInt(&out, uint8_t{200});
  AppendJsonInt(&out, int32_t{-2147483647 - 1});
  EXPECT_EQ(out, fmt::format("{}{}{}", std::numeric_limits<uint64_t>::max(), uint8_t{200}, int32_t{-2147483647 - 1}));
}

}  // namespace
}  // namespace vanon::base
