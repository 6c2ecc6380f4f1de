// Reads whole topics back for assertions, as a read_committed consumer
// (note: librdkafka's mock cluster writes no transaction markers, so it
// shows records of aborted transactions too; tests that care tell attempts
// apart by the vanon.attempt header).
#ifndef VANON_TESTS_SERVICE_TOPIC_READER_H_
#define VANON_TESTS_SERVICE_TOPIC_READER_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace vanon::testing {

struct TopicRecord {
  int32_t partition = 0;
  int64_t offset = 0;
  std::string key;
  std::string value;
  std::map<std::string, std::string> headers;
};

// Every record of every partition from the log start to the end offset at
// call time, in (partition, offset) order. read_uncommitted: as a consumer
// with isolation.level=read_uncommitted, which sees aborted attempts too.
std::vector<TopicRecord> ReadTopic(const std::string& bootstrap, const std::string& topic,
                                   bool read_uncommitted = false);

// vanon-kafka arguments / in-process topic names for every topic the service uses.
std::vector<std::string> ServiceTopicArgs(int input_partitions, int output_partitions);

}  // namespace vanon::testing

#endif  // VANON_TESTS_SERVICE_TOPIC_READER_H_
