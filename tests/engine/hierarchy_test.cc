#include "vanon/engine/hierarchy.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "vanon/engine/schema.h"

namespace vanon::engine {
namespace {

const std::string kAdult = std::string(VANON_ADULT_DIR) + "/";

TEST(HierarchyTest, LoadsArxEducation) {
  auto h = CategoricalHierarchy::LoadArxCsv(kAdult + "adult_hierarchy_education.csv");
  EXPECT_EQ(h.LeafCount(), 16);
  EXPECT_EQ(h.Name(h.Root()), "*");
  EXPECT_EQ(h.Height(), 3);
  const int32_t bachelors = *h.LeafId("Bachelors");
  const int32_t some_college = *h.LeafId("Some-college");
  const int32_t hs_grad = *h.LeafId("HS-grad");
  EXPECT_EQ(h.Name(h.LowestCommonNode(bachelors, some_college)), "Undergraduate");
  EXPECT_EQ(h.Name(h.LowestCommonNode(bachelors, hs_grad)), "*");
  EXPECT_EQ(h.Name(h.LowestCommonNode(hs_grad, hs_grad)), "HS-grad");
  EXPECT_FALSE(h.LeafId("Kindergarten").has_value());
  EXPECT_DOUBLE_EQ(h.Loss(h.Root()), 1.0);
  EXPECT_DOUBLE_EQ(h.Loss(h.LeafNode(bachelors)), 0.0);
}

TEST(HierarchyTest, EveryNodeCoversAContiguousLeafRange) {
  auto h = CategoricalHierarchy::LoadArxCsv(kAdult + "adult_hierarchy_native-country.csv");
  for (int32_t leaf = 0; leaf < h.LeafCount(); ++leaf) {
    for (int32_t n = h.LeafNode(leaf); n >= 0; n = h.Parent(n)) {
      EXPECT_LE(h.LeafBegin(n), leaf);
      EXPECT_LT(leaf, h.LeafEnd(n));
    }
  }
  EXPECT_EQ(h.LeafBegin(h.Root()), 0);
  EXPECT_EQ(h.LeafEnd(h.Root()), h.LeafCount());
}

std::string WriteTemp(const std::string& text) {
  char name[] = "/tmp/vanon_hierarchy_XXXXXX";
  const int fd = mkstemp(name);
  EXPECT_GE(fd, 0);
  std::ofstream(name) << text;
  close(fd);
  return name;
}

std::string LoadError(const std::string& text) {
  const std::string path = WriteTemp(text);
  std::string message;
  try {
    CategoricalHierarchy::LoadArxCsv(path);
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  std::remove(path.c_str());
  return message.empty() ? message : message.substr(message.find(':') + 1);
}

TEST(HierarchyTest, ErrorsNameFileAndLine) {
  EXPECT_EQ(LoadError("a;x;*\nb;*\n"), "2: expected 3 columns, found 2");
  EXPECT_EQ(LoadError("a;x;*\na;y;*\n"), "2: leaf 'a' appears twice");
  EXPECT_EQ(LoadError("a;x;*\nb;;*\n"), "2: empty cell");
  EXPECT_EQ(LoadError("a;*\nb;ALL\n"), "2: root 'ALL' differs from '*'");
  const std::string path = WriteTemp("a;*\nb\n");
  try {
    CategoricalHierarchy::LoadArxCsv(path);
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), path + ":2: a row needs a leaf and a root column");
  }
  std::remove(path.c_str());
  EXPECT_THROW(CategoricalHierarchy::LoadArxCsv("/nonexistent/h.csv"), std::runtime_error);
}

TEST(SchemaTest, NumericBinsAndOnDemandIntervals) {
  QiAttribute year{"year", nullptr, NumericDomain{2000, 2029, 5}};
  QiAttribute seats{"seats", nullptr, NumericDomain{1, 9, 0}};
  Schema s({year, seats});
  EXPECT_EQ(s.Generalize(0, 2003, 2003), (Cover{2000, 2004}));
  EXPECT_EQ(s.Generalize(0, 2003, 2006), (Cover{2000, 2009}));
  EXPECT_EQ(s.Generalize(0, 2027, 2029), (Cover{2025, 2029}));
  EXPECT_EQ(s.Label(0, Cover{2000, 2009}), "[2000,2009]");
  EXPECT_EQ(s.Generalize(1, 4, 5), (Cover{4, 5}));
  EXPECT_EQ(s.Label(1, Cover{4, 5}), "[4,5]");
  EXPECT_EQ(s.Label(1, Cover{5, 5}), "5");
  EXPECT_DOUBLE_EQ(s.Loss(1, Cover{4, 5}), 1.0 / 8);
  EXPECT_EQ(s.Encode(1, "7"), 7);
  EXPECT_FALSE(s.Encode(1, "10").has_value());
  EXPECT_FALSE(s.Encode(1, "7x").has_value());
}

TEST(SchemaTest, CategoricalCoverIsLowestCommonNode) {
  auto h = std::make_shared<CategoricalHierarchy>(CategoricalHierarchy::FromRows({{"BEV", "Electrified", "*"},
                                                                                  {"PHEV", "Electrified", "*"},
                                                                                  {"Petrol", "Combustion", "*"},
                                                                                  {"Diesel", "Combustion", "*"}},
                                                                                 "engine"));
  Schema s({QiAttribute{"engine", h, {}}});
  const int32_t bev = *s.Encode(0, "BEV"), phev = *s.Encode(0, "PHEV"), diesel = *s.Encode(0, "Diesel");
  const Cover c = s.Generalize(0, std::min(bev, phev), std::max(bev, phev));
  EXPECT_EQ(s.Label(0, c), "Electrified");
  EXPECT_DOUBLE_EQ(s.Loss(0, c), 1.0 / 3);
  const Cover all = s.Generalize(0, std::min(bev, diesel), std::max(bev, diesel));
  EXPECT_EQ(s.Label(0, all), "*");
  EXPECT_DOUBLE_EQ(s.Loss(0, all), 1.0);
}

}  // namespace
}  // namespace vanon::engine
