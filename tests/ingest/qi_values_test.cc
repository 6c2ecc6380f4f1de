#include "vanon/ingest/qi_values.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "vanon/ingest/buffered_event.h"

namespace vanon::ingest {
namespace {

TEST(QiValuesTest, CopiesShareOneVector) {
  const QiValues a = std::vector<std::string>{"Volkswagen", "BEV", "5"};
  const QiValues b = a;  // a second event of the same vehicle
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(&a.values(), &b.values());
  EXPECT_EQ(b[0], "Volkswagen");
  EXPECT_EQ(b[2], "5");
}

TEST(QiValuesTest, ComparesByValueNotByIdentity) {
  const QiValues a = {"BMW", "2019"};
  const QiValues same = {"BMW", "2019"};
  const QiValues other = {"BMW", "2020"};
  EXPECT_NE(&a.values(), &same.values());
  EXPECT_EQ(a, same);
  EXPECT_FALSE(a == other);
  EXPECT_EQ(QiValues(), QiValues(std::vector<std::string>{}));
}

// The list starts a cache line of its own: the reference counts, which
// every buffered copy writes, are on the line before it, so readers of the
// values do not take the counts' line from the thread that copies.
TEST(QiValuesTest, ValuesStartACacheLineOfTheirOwn) {
  for (int i = 0; i < 8; ++i) {
    const QiValues a = std::vector<std::string>{"Volkswagen", "BEV", std::to_string(i)};
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(&a.values()) % 64, 0u);
  }
}

TEST(QiValuesTest, DefaultIsEmpty) {
  const QiValues none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.size(), 0u);
  EXPECT_EQ(none.begin(), none.end());
}

// Decoding builds a vector of its own per event; the values round-trip.
TEST(QiValuesTest, BufferedEventRoundTripKeepsTheValues) {
  BufferedEvent e;
  e.event = "vehicle_speed";
  e.qi_values = {"Electrified", "", "5"};
  std::string encoded;
  EncodeBufferedEvent(e, &encoded);
  BufferedEvent back;
  ASSERT_TRUE(DecodeBufferedEvent(encoded, &back));
  EXPECT_EQ(back.qi_values, e.qi_values);
  EXPECT_EQ(back.qi_values.values(), (std::vector<std::string>{"Electrified", "", "5"}));
}

}  // namespace
}  // namespace vanon::ingest
