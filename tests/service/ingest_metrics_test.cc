#include "service/ingest/ingest_metrics.h"

#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <map>
#include <string>

namespace vanon::service {
namespace {

// partition label -> value of vanon_consumer_partition_lag_messages.
std::map<std::string, double> PartitionLags(prometheus::Registry& r) {
  std::map<std::string, double> out;
  for (const auto& family : r.Collect()) {
    if (family.name != "vanon_consumer_partition_lag_messages") continue;
    for (const auto& m : family.metric) {
      EXPECT_EQ(m.label.size(), 1u);
      EXPECT_EQ(m.label[0].name, "partition");
      out[m.label[0].value] = m.gauge.value;
    }
  }
  return out;
}

TEST(IngestMetricsTest, LagPerAssignedPartitionOnly) {
  prometheus::Registry registry;
  IngestMetrics metrics(registry);
  EXPECT_TRUE(PartitionLags(registry).empty());
  metrics.SetPartitionLags({{0, 120}, {3, 0}, {7, 45000}});
  EXPECT_EQ(PartitionLags(registry), (std::map<std::string, double>{{"0", 120}, {"3", 0}, {"7", 45000}}));
  // Partition 7 went to another instance; 5 came; 0 caught up.
  metrics.SetPartitionLags({{0, 0}, {3, 10}, {5, 99}});
  EXPECT_EQ(PartitionLags(registry), (std::map<std::string, double>{{"0", 0}, {"3", 10}, {"5", 99}}));
  metrics.SetPartitionLags({});
  EXPECT_TRUE(PartitionLags(registry).empty());
}

}  // namespace
}  // namespace vanon::service
