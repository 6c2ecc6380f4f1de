// Shared by the Kafka adapter tests: a fresh mock cluster per test and a
// reader that copies what ReadCommitted visits.
#ifndef VANON_TESTS_KAFKA_KAFKA_TEST_UTIL_H_
#define VANON_TESTS_KAFKA_KAFKA_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "vanon/kafka/committed_reader.h"
#include "vanon/kafka/mock_cluster.h"

namespace vanon::kafka {

struct ReadRecord {
  int64_t offset;
  std::string key;
  std::string value;
};

class MockKafkaTest : public ::testing::Test {
 protected:
  MockKafkaTest() : cluster_(1), bootstrap_(cluster_.Bootstrap()) {}

  std::vector<ReadRecord> ReadAll(const std::string& topic, int32_t partition, int64_t from, int timeout_ms = 10000) {
    std::vector<ReadRecord> out;
    ReadCommitted(
        bootstrap_, {}, {}, topic, partition, from,
        [&](const CommittedRecord& r) {
          out.push_back({r.offset, std::string(r.key), std::string(r.value)});
          return true;
        },
        timeout_ms);
    return out;
  }

  MockCluster cluster_;
  std::string bootstrap_;
};

inline std::string Key(int i) { return "vehicle-" + std::to_string(i); }
inline std::string Value(int i) { return "{\"n\":" + std::to_string(i) + "}"; }

}  // namespace vanon::kafka

#endif  // VANON_TESTS_KAFKA_KAFKA_TEST_UTIL_H_
