// Produces a deterministic synthetic fleet to a topic and remembers what it
// sent, so tests can state exactly what the service must have done with it.
#ifndef VANON_TESTS_SERVICE_FLEET_FEED_H_
#define VANON_TESTS_SERVICE_FLEET_FEED_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace vanon::testing {

struct FeedSummary {
  uint64_t total = 0;
  uint64_t invalid = 0;
  std::map<std::string, uint64_t> invalid_by_reason;
  // (value bytes, expected reason) for each malformed message, as a multiset.
  std::multiset<std::pair<std::string, std::string>> rejected_values;
  std::set<std::string> vins;  // every VIN that appeared in a message
};

struct FeedOptions {
  uint64_t messages = 20000;
  uint64_t vehicles = 500;
  double invalid_fraction = 0.05;
  uint64_t seed = 7;
  double rate = 5000;                // simulated events/s (event-time spacing)
  double wall_rate = 0;              // >0: pace production at this many msgs/s of wall time
  int64_t start_ms = 0;              // 0: now
  int32_t partition = -1;            // >= 0: every message to this partition (else by key)
  size_t max_message_bytes = 16384;  // keep equal to the service's input.max_message_bytes
};

// The mock cluster drops old messages past about 5 MB a partition; a test
// whose input was truncated would report that as loss. Returns the sum of the
// low watermarks of partitions [0, partitions): 0 means nothing was dropped.
int64_t SumLowWatermarks(const std::string& bootstrap, const std::string& topic, int partitions);

FeedSummary ProduceFleet(const std::string& bootstrap, const std::string& topic, const FeedOptions& o);

}  // namespace vanon::testing

#endif  // VANON_TESTS_SERVICE_FLEET_FEED_H_
