#include "vanon/release/record_list.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vanon::release {
namespace {

// Records of many sizes, across chunk boundaries and larger than a chunk,
// read back whole and in order.
TEST(RecordList, RecordsComeBackWholeAndInOrder) {
  RecordList list;
  std::vector<std::string> expected;
  for (size_t i = 0; i < 3000; ++i) {
    const size_t size = i % 97 == 0 ? 300000 + i : 1 + (i * 131) % 700;
    std::string r(size, static_cast<char>('a' + i % 26));
    r += std::to_string(i);
    if (i % 2 == 0) {
      list.Append(r);
    } else {
      list.buffer()->append(r.substr(0, 5));
      list.buffer()->append(r.substr(5));
      list.Seal();
    }
    expected.push_back(r);
  }
  ASSERT_EQ(list.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(list[i], expected[i]) << i;
  size_t i = 0;
  for (std::string_view r : list) EXPECT_EQ(r, expected[i++]);
  EXPECT_EQ(i, expected.size());
  list.Release();
  EXPECT_TRUE(list.empty());
  list.Append("again");
  EXPECT_EQ(list[0], "again");
}

TEST(RecordList, EmptyRecordIsARecord) {
  RecordList list;
  list.Seal();
  list.Append("x");
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0], "");
  EXPECT_EQ(list[1], "x");
}

}  // namespace
}  // namespace vanon::release
