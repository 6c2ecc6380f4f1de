// The records of the two output topics, read back from their JSON as a
// downstream consumer would (schemas/anonymized-event.v1.schema.json and
// schemas/release-record.v2.schema.json). Only the fields the end-to-end
// check needs are kept.
#ifndef VANON_TESTS_E2E_OUTPUT_RECORDS_H_
#define VANON_TESTS_E2E_OUTPUT_RECORDS_H_

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vanon::e2e {

// vehicle.events.anonymized
struct EventRecord {
  int64_t release = 0;
  std::string group;
  std::string tuple;
  std::map<std::string, std::string> qi;
  int64_t ts = 0;
  std::string event;
  std::optional<uint64_t> seq;  // payload.seq, kept by the test config
  std::string raw;              // the whole record, for leak checks
};

// A token-value pair of a version-1 group record.
struct GroupTuple {
  std::string token;
  std::optional<std::string> sensitive;
};

// vehicle.releases, "type": "group". Version 2 lists the group's values
// without tokens; version 1 paired each token with its value, which let a
// reader drop the counterfeits' values (tokens without events). Both are
// read so that the consumer-side attack can show the difference.
struct GroupRecord {
  int version = 1;
  int64_t release = 0;
  int32_t partition = 0;
  std::string group;
  std::map<std::string, std::string> qi;
  uint64_t size = 0;                   // tuples, counterfeits included
  std::vector<std::string> sensitive;  // v2: one per tuple, shuffled
  std::vector<GroupTuple> tuples;      // v1 only
  uint64_t counterfeits = 0;
};

// vehicle.releases, "type": "summary"
struct SummaryRecord {
  int64_t release = 0;
  int32_t partition = 0;
  int32_t partitions = 0;
  int64_t epoch_start = 0;
  int64_t epoch_end = 0;
  uint64_t groups = 0;
  uint64_t tuples = 0;
  uint64_t counterfeits = 0;
  uint64_t events = 0;
  std::optional<uint64_t> published;
  std::optional<uint64_t> waiting;
  // signature_conflict, delay, ineligible (the engine's SuppressReason order)
  std::array<uint64_t, 3> suppressed{};
};

// Each returns nullopt and sets *error when the record lacks a required
// field or has a wrong type.
std::optional<EventRecord> ParseEventRecord(std::string_view json, std::string* error);

struct ReleaseRecord {
  bool is_summary = false;
  GroupRecord group;      // when !is_summary
  SummaryRecord summary;  // when is_summary
};
std::optional<ReleaseRecord> ParseReleaseRecord(std::string_view json, std::string* error);

}  // namespace vanon::e2e

#endif  // VANON_TESTS_E2E_OUTPUT_RECORDS_H_
