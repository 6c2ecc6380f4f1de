#include "vanon/ingest/qi_pool.h"

#include <gtest/gtest.h>

namespace vanon::ingest {
namespace {

TEST(QiPool, EqualListsShareOneCopy) {
  QiPool pool;
  QiValues a = pool.Get({"Tesla", "EV", "Sedan"});
  QiValues b = pool.Get({"Tesla", "EV", "Sedan"});
  QiValues c = pool.Get({"Tesla", "EV", "SUV"});
  EXPECT_EQ(a, b);
  EXPECT_EQ(&a.values(), &b.values());
  EXPECT_NE(a, c);
  EXPECT_EQ(c, (QiValues{"Tesla", "EV", "SUV"}));
  EXPECT_EQ(pool.size(), 2u);
}

// Values are told apart by their lengths, not by a separator a value could hold.
TEST(QiPool, ValuesThatConcatenateAlikeStayApart) {
  QiPool pool;
  EXPECT_NE(pool.Get({"ab", "c"}), pool.Get({"a", "bc"}));
  EXPECT_NE(pool.Get({"", "x"}), pool.Get({"x", ""}));
  EXPECT_NE(pool.Get({}), pool.Get({""}));
  EXPECT_EQ(pool.Get({}).size(), 0u);
}

TEST(QiPool, StartsOverWhenFullAndWhatItGaveStaysValid) {
  QiPool pool(2);
  QiValues a = pool.Get({"a"});
  pool.Get({"b"});
  QiValues c = pool.Get({"c"});  // the third: the pool starts over
  EXPECT_EQ(pool.size(), 1u);
  EXPECT_EQ(a, (QiValues{"a"}));
  EXPECT_EQ(c, (QiValues{"c"}));
  EXPECT_NE(&pool.Get({"a"}).values(), &a.values());  // no longer shared
}

}  // namespace
}  // namespace vanon::ingest
