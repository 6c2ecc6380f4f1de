// Contract between the generator and the ingest layer: the service must
// reject every malformed message with the reason the generator announces,
// and accept every other one with the values the generator wrote.
#include <gtest/gtest.h>

#include <map>

#include "test_util.h"
#include "vanon/fleet/fleet_generator.h"
#include "vanon/ingest/event_parser.h"
#include "vanon/vehicle/vin_decoder.h"

namespace vanon::fleet {
namespace {

TEST(FleetIngestContractTest, ParserAgreesWithExpectedRejects) {
  const VinDecoder table = VinDecoder::Load(test::SourcePath("config/vehicle/vin-table.yaml"));
  FleetOptions options;
  options.vehicles = 1000;
  options.seed = 99;
  options.invalid_fraction = 0.05;
  options.churn = 0.1;
  FleetGenerator gen(options, table);
  ingest::EventParser parser(ingest::FieldMapping{}, ingest::ValidationLimits{});
  ingest::ParsedEvent event;
  ingest::Rejection rejection;
  std::map<std::string, int> rejected;
  int accepted = 0;
  for (int i = 0; i < 30000; ++i) {
    const FleetMessage& m = gen.Next();
    // The service's clock runs a second behind the newest event time.
    const bool ok = parser.Parse(m.key, m.value, m.ts_ms + 1000, &event, &rejection);
    if (m.expected_reject) {
      ASSERT_FALSE(ok) << m.value.substr(0, 300);
      ASSERT_EQ(RejectReasonName(rejection.reason), *m.expected_reject) << rejection.detail << "\n"
                                                                        << m.value.substr(0, 300);
      ++rejected[std::string(*m.expected_reject)];
    } else {
      ASSERT_TRUE(ok) << RejectReasonName(rejection.reason) << ": " << rejection.detail << "\n" << m.value;
      EXPECT_EQ(event.vin, m.key);
      EXPECT_EQ(event.ts_ms, m.ts_ms);
      ++accepted;
    }
  }
  EXPECT_EQ(rejected.size(), kFleetRejectReasons.size());
  EXPECT_GT(accepted, 27000);
}

}  // namespace
}  // namespace vanon::fleet
