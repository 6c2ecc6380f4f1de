#include "vanon/engine/value_window.h"

#include <gtest/gtest.h>

namespace vanon::engine {
namespace {

WindowParams Window(uint32_t epochs) {
  WindowParams p;
  p.epochs = epochs;
  p.missing_value = 99;
  return p;
}

TEST(ValueWindowTest, OneEpochIsThatEpochsMode) {
  ValueWindow w;
  const WindowParams p = Window(1);
  EXPECT_EQ(w.Advance(1, {{3, 1}, {4, 2}}, p), 4u);
  EXPECT_EQ(w.Advance(2, {{3, 2}, {4, 1}}, p), 3u);
}

TEST(ValueWindowTest, WindowedModeMovesOnlyWhenBehaviourMoves) {
  ValueWindow w;
  const WindowParams p = Window(3);
  EXPECT_EQ(w.Advance(1, {{7, 3}}, p), 7u);
  // One epoch of another value does not outweigh three tracks of 7.
  EXPECT_EQ(w.Advance(2, {{5, 2}}, p), 7u);
  // 5 now has 4 tracks against 3.
  EXPECT_EQ(w.Advance(3, {{5, 2}}, p), 5u);
  // Epoch 1 left the window: 7 has 1 track, 5 has 4.
  EXPECT_EQ(w.Advance(4, {{7, 1}}, p), 5u);
}

// Every id held counts: the epochs' counts, the history and the last value.
TEST(ValueWindowTest, IdsBelowSeesEveryIdHeld) {
  EXPECT_TRUE(ValueWindow().IdsBelow(0));
  ValueWindow::Parts parts;
  parts.epochs = {{1, {{2, 1}}}, {2, {{5, 1}}}};
  EXPECT_TRUE(ValueWindow::FromParts(parts).IdsBelow(6));
  EXPECT_FALSE(ValueWindow::FromParts(parts).IdsBelow(5));
  parts.history = {{9, 1}};
  EXPECT_FALSE(ValueWindow::FromParts(parts).IdsBelow(6));
  parts.history.clear();
  parts.last = 7;
  EXPECT_FALSE(ValueWindow::FromParts(parts).IdsBelow(6));
  EXPECT_TRUE(ValueWindow::FromParts(parts).IdsBelow(8));
}

TEST(ValueWindowTest, TiesKeepThePreviousValue) {
  ValueWindow w;
  const WindowParams p = Window(2);
  EXPECT_EQ(w.Advance(1, {{9, 2}}, p), 9u);
  EXPECT_EQ(w.Advance(2, {{1, 2}}, p), 9u);  // 9 and 1 tie: 9 stays
  ValueWindow fresh;
  EXPECT_EQ(fresh.Advance(1, {{9, 2}, {1, 2}}, p), 1u);  // no previous value: smaller id
}

TEST(ValueWindowTest, MissingFieldGetsMissingValueByDefault) {
  ValueWindow w;
  WindowParams p = Window(1);
  EXPECT_EQ(w.Advance(1, {{4, 1}}, p), 4u);
  EXPECT_EQ(w.Advance(2, {}, p), 99u);
  p.missing_value.reset();
  EXPECT_EQ(w.Advance(3, {}, p), std::nullopt);  // ineligible
}

TEST(ValueWindowTest, CarryKeepsTheLastValueForALimitedTime) {
  ValueWindow w;
  WindowParams p = Window(1);
  p.missing = MissingPolicy::kCarry;
  p.carry_epochs = 2;
  EXPECT_EQ(w.Advance(1, {}, p), 99u);  // nothing to carry yet
  EXPECT_EQ(w.Advance(2, {{4, 1}}, p), 4u);
  EXPECT_EQ(w.Advance(3, {}, p), 4u);
  EXPECT_EQ(w.Advance(4, {}, p), 4u);
  EXPECT_EQ(w.Advance(5, {}, p), 99u);  // carried long enough
}

TEST(ValueWindowTest, HistoryCountsEventsMostFrequentFirstAndFades) {
  ValueWindow w;
  WindowParams p = Window(1);
  p.history_values = 2;
  w.Advance(1, {{5, 3}, {6, 1}}, p);
  w.Advance(2, {{6, 4}, {8, 2}}, p);
  // 6: 5 events, 5: 3, 8: 2 dropped by the cap of two values.
  EXPECT_EQ(w.history(), (std::vector<ValueCount>{{6, 5}, {5, 3}}));
  w.Advance(3, {{5, 300}}, p);
  // 5 reached 303 >= 256: every count halves (6 -> 2).
  EXPECT_EQ(w.history(), (std::vector<ValueCount>{{5, 151}, {6, 2}}));
  w.Advance(4, {}, p);  // an epoch without the field adds nothing
  EXPECT_EQ(w.history(), (std::vector<ValueCount>{{5, 151}, {6, 2}}));
}

}  // namespace
}  // namespace vanon::engine
