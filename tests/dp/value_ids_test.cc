// ValueIds' table: ids in order of interning, found by string_view, values
// that agree in length and in their first and last eight bytes (the part
// the hash reads) told apart, any value not interned kOther.
#include "vanon/dp/value_ids.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vanon::dp {
namespace {

// "head0000" + a middle + "0000tail": one length, one hash.
std::string SameEnds(int i) { return "head0000" + std::to_string(100 + i) + "0000tail"; }

TEST(ValueIdsTest, InternsInOrderAndFindsEveryValueItInterned) {
  ValueIds ids;
  const size_t names = ids.EventField();
  const size_t region = ids.QiField("region");
  std::vector<std::string> values = {"", "a", "north", "touchscreen_used", "touchscreen_user"};
  for (int i = 0; i < 40; ++i) values.push_back(SameEnds(i));  // grows the table past its first size
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(ids.Intern(names, values[i]), i) << values[i];
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(ids.Intern(names, values[i]), i) << values[i];  // again: the same id
    EXPECT_EQ(ids.IdOf(names, std::string_view(values[i])), i) << values[i];
    EXPECT_EQ(ids.IdOf(region, values[i]), ValueIds::kOther) << values[i];  // fields apart
  }
  for (const std::string& other : {SameEnds(40), SameEnds(-1), std::string("touchscreen_usee"), std::string("b"),
                                   std::string("nort"), std::string(1, '\0')}) {
    EXPECT_EQ(ids.IdOf(names, other), ValueIds::kOther) << other;
  }
  EXPECT_TRUE(ids.FieldIsEventName(names));
  EXPECT_FALSE(ids.FieldIsEventName(region));
  EXPECT_EQ(ids.FieldQi(region), "region");
}

TEST(ValueIdsTest, ResolvesDpEventsFieldByField) {
  ValueIds ids;
  const size_t names = ids.EventField();
  const size_t song = ids.QiField(kSensitiveKey);
  const uint32_t media = ids.Intern(names, "media");
  const uint32_t jazz = ids.Intern(song, "jazz");
  DpEvent a;
  a.trip = "t1";
  a.name = "media";
  a.ts_ms = 5;
  a.qi = {{kSensitiveKey, "jazz"}};
  DpEvent b;
  b.trip = "t2";
  b.name = "door";
  b.ts_ms = 7;
  const std::vector<DpEvent> events = {a, b};
  ResolvedEvents r;
  ids.ResolveAll(events, &r);
  ASSERT_EQ(r.size(), 2u);
  ASSERT_EQ(r.stride(), 2u);
  EXPECT_EQ(r.ids(0)[names], media);
  EXPECT_EQ(r.ids(0)[song], jazz);
  EXPECT_EQ(r.ids(1)[names], ValueIds::kOther);
  EXPECT_EQ(r.ids(1)[song], ValueIds::kMissing);
  EXPECT_EQ(r.ts_ms(1), 7);
  EXPECT_EQ(r.trip(0), "t1");
  EXPECT_EQ(r.trip(1), "t2");
}

}  // namespace
}  // namespace vanon::dp
