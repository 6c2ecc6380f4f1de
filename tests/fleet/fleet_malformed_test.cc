// Malformed messages: their share, their reasons, and that each body
// really breaks the rule it names first (checked by an independent reader).
#include <gtest/gtest.h>

#include <map>

#include "event_checks.h"
#include "test_util.h"
#include "vanon/fleet/fleet_generator.h"
#include "vanon/vehicle/vin_decoder.h"

namespace vanon::fleet {
namespace {

const VinDecoder& Table() {
  static const VinDecoder table = VinDecoder::Load(test::SourcePath("config/vehicle/vin-table.yaml"));
  return table;
}

TEST(FleetMalformedTest, FractionHonouredAndEveryReasonAppears) {
  FleetOptions options;
  options.vehicles = 2000;
  options.seed = 21;
  options.invalid_fraction = 0.05;
  FleetGenerator gen(options, Table());
  const int n = 40000;
  int invalid = 0;
  std::map<std::string, int> by_reason;
  for (int i = 0; i < n; ++i) {
    const FleetMessage& m = gen.Next();
    const std::string violation = test::FirstViolation(m.key, m.value);
    if (!m.expected_reject) {
      ASSERT_EQ(violation, "") << m.value;
      continue;
    }
    ++invalid;
    const std::string reason(*m.expected_reject);
    ++by_reason[reason];
    // The reader finds the same first violation the generator announced
    // (m.value can be > 1 MiB, so never print it whole).
    ASSERT_EQ(violation, reason) << m.value.substr(0, 300);
  }
  // 2000 expected, sd ~44.
  EXPECT_NEAR(invalid, 2000, 250);
  ASSERT_EQ(by_reason.size(), kFleetRejectReasons.size());
  for (std::string_view reason : kFleetRejectReasons) {
    EXPECT_NEAR(by_reason[std::string(reason)], invalid / 8.0, 2) << reason;
  }
}

TEST(FleetMalformedTest, NoInvalidFractionNoRejects) {
  FleetOptions options;
  options.vehicles = 100;
  FleetGenerator gen(options, Table());
  for (int i = 0; i < 20000; ++i) ASSERT_FALSE(gen.Next().expected_reject.has_value());
}

TEST(FleetMalformedTest, AllInvalidCyclesThroughReasonsInOrder) {
  FleetOptions options;
  options.vehicles = 10;
  options.invalid_fraction = 1.0;
  FleetGenerator gen(options, Table());
  for (int i = 0; i < 48; ++i) {
    const FleetMessage& m = gen.Next();
    ASSERT_TRUE(m.expected_reject.has_value());
    EXPECT_EQ(*m.expected_reject, kFleetRejectReasons[i % 8]);
    EXPECT_EQ(test::FirstViolation(m.key, m.value), *m.expected_reject) << m.value.substr(0, 300);
  }
}

}  // namespace
}  // namespace vanon::fleet
