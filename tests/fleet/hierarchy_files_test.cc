// The shipped hierarchies must be well-formed ARX trees and cover every
// value the shipped VIN table can decode to, or the engine would meet
// leaves it cannot generalize.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "test_util.h"
#include "vanon/vehicle/vin_decoder.h"

namespace vanon::fleet {
namespace {

struct Tree {
  std::set<std::string> leaves;
  std::set<std::string> groups;  // second column
};

// Checks ARX shape (one row per leaf, same width, root '*', every node
// with one parent) and returns leaves and first-level groups.
Tree ReadArx(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  Tree tree;
  std::map<std::string, std::string> parent;
  size_t width = 0;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    std::vector<std::string> cells;
    std::stringstream row(line);
    std::string cell;
    while (std::getline(row, cell, ';')) cells.push_back(cell);
    if (width == 0) width = cells.size();
    EXPECT_GE(cells.size(), 2u) << path << ":" << line_no;
    EXPECT_EQ(cells.size(), width) << path << ":" << line_no;
    EXPECT_EQ(cells.back(), "*") << path << ":" << line_no;
    EXPECT_TRUE(tree.leaves.insert(cells.front()).second) << path << ":" << line_no << " duplicate leaf";
    if (cells.size() > 1) tree.groups.insert(cells[1]);
    for (size_t i = 0; i + 1 < cells.size(); ++i) {
      EXPECT_FALSE(cells[i].empty()) << path << ":" << line_no;
      auto [it, inserted] = parent.emplace(cells[i], cells[i + 1]);
      EXPECT_EQ(it->second, cells[i + 1]) << path << ":" << line_no << " " << cells[i] << " has two parents";
    }
  }
  EXPECT_GT(line_no, 0) << path;
  return tree;
}

TEST(HierarchyFilesTest, CoverEveryValueOfTheShippedTable) {
  const VinDecoder table = VinDecoder::Load(test::SourcePath("config/vehicle/vin-table.yaml"));
  const Tree makers = ReadArx(test::SourcePath("config/hierarchies/manufacturer.csv"));
  const Tree engines = ReadArx(test::SourcePath("config/hierarchies/engine.csv"));
  const Tree bodies = ReadArx(test::SourcePath("config/hierarchies/body.csv"));
  for (const Manufacturer& m : table.manufacturers()) {
    EXPECT_EQ(makers.leaves.count(m.name), 1u) << m.name;
    for (const VehicleModel& model : m.models) {
      EXPECT_EQ(engines.leaves.count(model.engine), 1u) << model.engine;
      EXPECT_EQ(bodies.leaves.count(model.body), 1u) << model.body;
    }
  }
}

TEST(HierarchyFilesTest, EngineAndBodyGroupsAsDocumented) {
  const Tree engines = ReadArx(test::SourcePath("config/hierarchies/engine.csv"));
  EXPECT_EQ(engines.groups, (std::set<std::string>{"Electrified", "Combustion", "Alternative"}));
  const Tree bodies = ReadArx(test::SourcePath("config/hierarchies/body.csv"));
  EXPECT_EQ(bodies.groups.count("Sedan-family"), 1u);
  EXPECT_EQ(bodies.groups.count("Utility"), 1u);
}

}  // namespace
}  // namespace vanon::fleet
