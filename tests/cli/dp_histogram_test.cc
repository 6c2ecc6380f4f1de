// The demo's DP histogram of the sensitive value, from count records in the
// shape the service writes them (dp::ToJson with the partition appended, as
// the per-release counts do; DpWindowJson for DP windows).

#include "dp_histogram.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "service/dp/dp_windows.h"
#include "vanon/dp/count_record.h"
#include "vanon/dp/discrete_laplace.h"

namespace vanon::cli {
namespace {

const std::vector<std::string> kValues = {"Radio", "Taylor Swift", "Beyoncé"};

dp::DpCountRecord Count(uint64_t release, std::string query, dp::Cell cell, int64_t noisy,
                        std::string mechanism = "discrete_laplace") {
  dp::DpCountRecord r;
  r.release = release;
  r.query = std::move(query);
  r.cell = std::move(cell);
  r.noisy = noisy;
  r.count = std::max<int64_t>(0, noisy);
  if (r.count != r.noisy) r.postprocessed = {"clamp_nonnegative"};
  r.epsilon = 1;
  r.sensitivity = 4;  // vehicles, max_cells 4
  r.mechanism = std::move(mechanism);
  return r;
}

// As the per-release counts append the input partition.
std::string Json(const dp::DpCountRecord& r, int partition) {
  std::string json = dp::ToJson(r);
  json.pop_back();
  return json + ",\"partition\":" + std::to_string(partition) + "}";
}

// One draw of the sampler at epsilon 1, sensitivity 4.
double CellStd() { return std::sqrt(dp::DiscreteLaplace::ForQuery(4, dp::Rational{1, 1})->Variance()); }

// Release 12 of partition 0: Radio in two cells (engine BEV and Petrol),
// Beyoncé clamped to 0 (unclamped -3), `other`; Taylor Swift has no record.
// Around them: an older release, another partition, another query, a
// running total of the same query.
std::vector<std::string> Records() {
  const std::string q = "vehicles_by_artist";
  return {
      Json(Count(11, q, {{"sensitive", "Radio"}, {"engine", "BEV"}}, 1000), 0),
      Json(Count(12, q, {{"sensitive", "Radio"}, {"engine", "BEV"}}, 30), 0),
      Json(Count(12, q, {{"sensitive", "Radio"}, {"engine", "Petrol"}}, 11), 0),
      Json(Count(12, q, {{"sensitive", "Beyoncé"}, {"engine", "BEV"}}, -3), 0),
      Json(Count(12, q, {{"sensitive", "other"}, {"engine", "BEV"}}, 5), 0),
      Json(Count(12, q, {{"sensitive", "Taylor Swift"}, {"engine", "BEV"}}, 77), 1),
      Json(Count(12, "vehicles_by_engine", {{"engine", "BEV"}}, 500), 0),
      Json(Count(12, q, {{"sensitive", "Taylor Swift"}, {"engine", "BEV"}}, 900, "binary_tree_discrete_laplace"), 0),
  };
}

TEST(DpHistogramTest, EachValueWithRecordsGetsItsNoisyCountAndNoiseStd) {
  const std::optional<DpHistogram> h = HistogramOf(Records(), "vehicles_by_artist", kValues);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->release, 12);
  EXPECT_EQ(h->partition, 0);
  EXPECT_EQ(h->cells, 4u);
  EXPECT_DOUBLE_EQ(h->scale, 4.0);
  // In the order of the domain, `other` last; Taylor Swift has no record of
  // this release and partition, so no bar: nothing is invented.
  ASSERT_EQ(h->bars.size(), 3u);
  EXPECT_EQ(h->bars[0].value, "Radio");
  EXPECT_EQ(h->bars[0].noisy, 41);
  EXPECT_EQ(h->bars[0].cells, 2u);
  EXPECT_NEAR(h->bars[0].std, std::sqrt(2.0) * CellStd(), 1e-9);  // two independent draws
  EXPECT_EQ(h->bars[1].value, "Beyoncé");
  EXPECT_EQ(h->bars[1].noisy, -3);  // unclamped: sums stay unbiased
  EXPECT_NEAR(h->bars[1].std, CellStd(), 1e-9);
  EXPECT_EQ(h->bars[2].value, "other");
  EXPECT_EQ(h->bars[2].noisy, 5);
}

TEST(DpHistogramTest, PrintoutHasOneLinePerBarWithCountStdAndBar) {
  const std::string text = FormatDpHistogram(*HistogramOf(Records(), "vehicles_by_artist", kValues));
  // std: sqrt(2) x 5.64 = 7.98 for Radio, 5.64 for one cell; bars of 40
  // characters at the largest count.
  const std::string expected =
      "---- DP histogram of the sensitive value: vehicles_by_artist, release 12, input partition 0 ----\n"
      "(every vehicle counted, suppressed ones included, no counterfeits; 4 cells, each with discrete Laplace "
      "noise of scale 4.0, summed per value; +- is the noise std of the sum)\n"
      "  Radio                    41 +- 8.0    " +
      std::string(40, '#') +
      "\n"
      "  Beyoncé                  -3 +- 5.6\n"
      "  other                     5 +- 5.6    ####\n"
      "-----------------------------------------------------------\n";
  EXPECT_EQ(text, expected);
  EXPECT_EQ(text.find("Taylor Swift"), std::string::npos);
}

TEST(DpHistogramTest, NoRecordOfTheQueryGivesNoHistogram) {
  const std::vector<std::string> records = {Json(Count(12, "vehicles_by_engine", {{"engine", "BEV"}}, 500), 0)};
  EXPECT_FALSE(HistogramOf(records, "vehicles_by_artist", kValues));
  EXPECT_FALSE(HistogramOf({}, "vehicles_by_artist", kValues));
}

// With dp.window_seconds, records carry their window and `release` is the
// window index: the latest window is shown.
TEST(DpHistogramTest, WindowedRecordsShowTheLatestWindow) {
  const std::string q = "vehicles_by_artist", tail = ",\"partition\":0";
  const std::vector<std::string> records = {
      service::DpWindowJson(Count(4, q, {{"sensitive", "Radio"}}, 9), 40'000, 50'000, tail),
      service::DpWindowJson(Count(5, q, {{"sensitive", "Radio"}}, 7), 50'000, 60'000, tail),
      service::DpWindowJson(Count(5, q, {{"sensitive", "Taylor Swift"}}, 2), 50'000, 60'000, tail),
  };
  const std::optional<DpHistogram> h = HistogramOf(records, q, kValues);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->release, 5);
  ASSERT_EQ(h->bars.size(), 2u);
  EXPECT_EQ(h->bars[0].value, "Radio");
  EXPECT_EQ(h->bars[0].noisy, 7);
  EXPECT_EQ(h->bars[1].value, "Taylor Swift");
  EXPECT_EQ(h->bars[1].noisy, 2);
}

}  // namespace
}  // namespace vanon::cli
