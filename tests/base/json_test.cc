#include "base/json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
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
