// The reconstructor's building blocks, against values worked out by hand.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "ground_truth.h"
#include "label_cover.h"
#include "output_records.h"
#include "truth_values.h"
#include "vanon/release/schema_from_config.h"

namespace vanon::e2e {
namespace {

TEST(E2eSupport, InsertSeqPutsSeqFirstInThePayload) {
  std::string m = R"({"vin":"X","payload":{"artist":"A"}})";
  ASSERT_TRUE(InsertSeq(&m, 42));
  EXPECT_EQ(m, R"({"vin":"X","payload":{"seq":42,"artist":"A"}})");
  std::string empty = R"({"payload":{}})";
  ASSERT_TRUE(InsertSeq(&empty, 7));
  EXPECT_EQ(empty, R"({"payload":{"seq":7}})");
  std::string none = R"({"vin":"X"})";
  EXPECT_FALSE(InsertSeq(&none, 1));
  EXPECT_EQ(SeqOfMessage(m), 42u);
  EXPECT_EQ(SeqOfPayload(R"({"seq":9})"), 9u);
  EXPECT_FALSE(SeqOfPayload(R"({"seq":"9"})").has_value());
}

class TruthValuesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() / ("vanon_e2e_engine_" + std::to_string(::getpid()) + ".csv");
    // Leaves in depth-first order: Petrol 0, Diesel 1, BEV 2, PHEV 3.
    std::ofstream(path_) << "Petrol;Combustion;*\nDiesel;Combustion;*\nBEV;Electrified;*\nPHEV;Electrified;*\n";
    config::QuasiIdentifier engine;
    engine.name = "engine";
    engine.hierarchy = path_.string();
    config::QuasiIdentifier seats;
    seats.name = "seats";
    seats.type = config::QiType::kNumeric;
    seats.range_min = 2;
    seats.range_max = 9;
    seats.bin_width = 2;
    config_.quasi_identifiers = {engine, seats};
    config::SensitiveConfig s;
    s.field = "payload.artist";
    s.aggregator = config::SensitiveAggregator::kMode;
    s.missing_value = "Radio";
    config_.sensitive = s;
    schema_ = release::SchemaFromConfig(config_.quasi_identifiers, config_.sensitive);
  }
  void TearDown() override { std::filesystem::remove(path_); }

  std::filesystem::path path_;
  config::Config config_;
  engine::Schema schema_;
};

// Numbers are never clamped or rounded: without an exact code, the root.
TEST_F(TruthValuesTest, EncodesLeavesAndExactNumbersOthersAtTheRoot) {
  TruthValues v(config_, schema_);
  EXPECT_EQ(v.EncodeQi({"BEV", "5"}), (std::vector<int32_t>{2, 5}));
  EXPECT_EQ(v.EncodeQi({"Diesel", "12"}), (std::vector<int32_t>{1, engine::kUnknownQiCode}));   // above max
  EXPECT_EQ(v.EncodeQi({"PHEV", "0.4"}), (std::vector<int32_t>{3, engine::kUnknownQiCode}));    // below min
  EXPECT_EQ(v.EncodeQi({"Petrol", "4.6"}), (std::vector<int32_t>{0, engine::kUnknownQiCode}));  // precision 0
  EXPECT_EQ(v.EncodeQi({"Petrol", "NO DATA"}), (std::vector<int32_t>{0, engine::kUnknownQiCode}));
  EXPECT_EQ(v.EncodeQi({"*", "5"}), (std::vector<int32_t>{engine::kUnknownQiCode, 5}));  // unknown VIN
  EXPECT_EQ(v.EncodeQi({"BEV", "*"}), (std::vector<int32_t>{2, engine::kUnknownQiCode}));
  EXPECT_FALSE(v.EncodeQi({"Electrified", "5"}).has_value());  // not a leaf
}

TEST_F(TruthValuesTest, ModeTiesGoToTheFirstOccurrence) {
  TruthValues v(config_, schema_);
  const std::string a = R"({"artist":"A"})", b = R"({"artist":"B"})", none = R"({"speed":3})";
  std::vector<const std::string*> tie = {&none, &b, &a, &a, &b};
  EXPECT_EQ(v.Sensitive(tie), "B");
  std::vector<const std::string*> most = {&b, &a, &a};
  EXPECT_EQ(v.Sensitive(most), "A");
  std::vector<const std::string*> missing = {&none};
  EXPECT_EQ(v.Sensitive(missing), "Radio");
  config_.sensitive->missing_value.reset();
  TruthValues strict(config_, schema_);
  EXPECT_FALSE(strict.Sensitive(missing).has_value());
}

TEST_F(TruthValuesTest, LabelsReadBackIntoCovers) {
  const engine::QiAttribute& engine = schema_.attribute(0);
  const engine::QiAttribute& seats = schema_.attribute(1);
  EXPECT_EQ(CoverOfLabel(engine, "Electrified", {}), (engine::Cover{2, 3}));
  EXPECT_EQ(CoverOfLabel(engine, "*", {}), (engine::Cover{0, 3}));
  EXPECT_EQ(CoverOfLabel(engine, "Diesel", {}), (engine::Cover{1, 1}));
  EXPECT_FALSE(CoverOfLabel(engine, "Hydrogen", {}).has_value());
  EXPECT_EQ(CoverOfLabel(seats, "[4,5]", {}), (engine::Cover{4, 5}));
  EXPECT_EQ(CoverOfLabel(seats, "7", {}), (engine::Cover{7, 7}));
  EXPECT_FALSE(CoverOfLabel(seats, "[5,4]", {}).has_value());
  EXPECT_FALSE(CoverOfLabel(seats, "4-5", {}).has_value());
}

TEST(E2eSupport, ParsesBothRecordKinds) {
  std::string error;
  auto g =
      ParseReleaseRecord(R"({"type":"group","version":2,"release":3,"partition":1,"group":"g-1","qi":{"engine":"*"},)"
                         R"("size":2,"sensitive":["X","Y"],"counterfeits":1})",
                         &error);
  ASSERT_TRUE(g.has_value()) << error;
  EXPECT_FALSE(g->is_summary);
  EXPECT_EQ(g->group.version, 2);
  EXPECT_EQ(g->group.size, 2u);
  EXPECT_EQ(g->group.sensitive, (std::vector<std::string>{"X", "Y"}));
  EXPECT_TRUE(g->group.tuples.empty());
  EXPECT_EQ(g->group.counterfeits, 1u);
  auto v1 = ParseReleaseRecord(
      R"({"type":"group","release":3,"partition":1,"group":"g-1","qi":{"engine":"*"},)"
      R"("tuples":[{"tuple":"t-a","sensitive":"X"},{"tuple":"t-b","sensitive":"Y"}],"counterfeits":1})",
      &error);
  ASSERT_TRUE(v1.has_value()) << error;
  EXPECT_EQ(v1->group.version, 1);
  EXPECT_EQ(v1->group.tuples.size(), 2u);
  EXPECT_EQ(v1->group.tuples[1].sensitive, "Y");
  auto s = ParseReleaseRecord(
      R"({"type":"summary","release":3,"partition":1,"partitions":2,"epoch_start":30,"epoch_end":40,)"
      R"("groups":1,"tuples":2,"published":1,"counterfeits":1,"events":4,"waiting":0,)"
      R"("suppressed":{"signature_conflict":0,"delay":2,"ineligible":1},"metrics":{}})",
      &error);
  ASSERT_TRUE(s.has_value()) << error;
  EXPECT_TRUE(s->is_summary);
  EXPECT_EQ(s->summary.suppressed[1], 2u);
  EXPECT_EQ(s->summary.published, 1u);
  EXPECT_FALSE(ParseReleaseRecord(R"({"type":"group","release":3})", &error).has_value());
  EXPECT_FALSE(ParseEventRecord(R"({"release":3})", &error).has_value());
  auto e = ParseEventRecord(
      R"({"release":3,"group":"g-1","tuple":"t-a","qi":{},"ts":0,"event":"x","payload":{"seq":5}})", &error);
  ASSERT_TRUE(e.has_value()) << error;
  EXPECT_EQ(e->seq, 5u);
}

}  // namespace
}  // namespace vanon::e2e
