#include "service/ingest/vin_cache.h"

#include <gtest/gtest.h>

#include <string>

namespace vanon::service {
namespace {

std::string Vin(int i) {
  std::string s = "WVWZZZ1KZAW" + std::to_string(100000 + i);
  return s;  // 17 characters
}

TEST(VinCacheTest, FindsWhatItInserted) {
  VinCache<int> cache(1000);
  for (int i = 0; i < 1000; ++i) {
    auto [v, fresh] = cache.FindOrInsert(Vin(i));
    ASSERT_TRUE(fresh) << i;
    *v = i;
  }
  for (int i = 0; i < 1000; ++i) {
    auto [v, fresh] = cache.FindOrInsert(Vin(i));
    EXPECT_FALSE(fresh) << i;
    EXPECT_EQ(*v, i);
  }
  EXPECT_EQ(cache.size(), 1000u);
}

TEST(VinCacheTest, KeysLongerThanAVinAndEmptyKeys) {
  VinCache<std::string> cache(8);
  const std::string a(40, 'A'), b = std::string(39, 'A') + "B";
  *cache.FindOrInsert(a).first = "a";
  *cache.FindOrInsert(b).first = "b";
  *cache.FindOrInsert("").first = "empty";
  EXPECT_EQ(*cache.FindOrInsert(a).first, "a");
  EXPECT_EQ(*cache.FindOrInsert(b).first, "b");
  EXPECT_EQ(*cache.FindOrInsert("").first, "empty");
  EXPECT_TRUE(cache.FindOrInsert(std::string(40, 'C')).second);
}

// The table starts small and grows: what was inserted before a growth is
// still found after it.
TEST(VinCacheTest, GrowsUpToItsBound) {
  VinCache<int> cache(1 << 16);
  for (int i = 0; i < 50000; ++i) *cache.FindOrInsert(Vin(i)).first = i;
  EXPECT_EQ(cache.size(), 50000u);
  for (int i = 0; i < 50000; ++i) {
    auto [v, fresh] = cache.FindOrInsert(Vin(i));
    ASSERT_FALSE(fresh) << i;
    ASSERT_EQ(*v, i);
  }
}

TEST(VinCacheTest, StartsOverWhenFull) {
  VinCache<int> cache(4);
  for (int i = 0; i < 4; ++i) *cache.FindOrInsert(Vin(i)).first = i + 1;
  auto [v, fresh] = cache.FindOrInsert(Vin(4));  // the fifth does not fit
  EXPECT_TRUE(fresh);
  EXPECT_EQ(*v, 0);
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_TRUE(cache.FindOrInsert(Vin(0)).second);  // dropped, computed again by the caller
}

}  // namespace
}  // namespace vanon::service
