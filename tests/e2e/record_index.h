// Indexes of the ground truth and the output records that the release
// replay looks things up in, plus the checks that concern single records:
// each published event names a known, on-time input once, carries its
// input's event name and bucketed time, no VIN, and its group's labels;
// each token belongs to one group and its events to one vehicle and epoch
// of the group's partition.
#ifndef VANON_TESTS_E2E_RECORD_INDEX_H_
#define VANON_TESTS_E2E_RECORD_INDEX_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ground_truth.h"
#include "output_records.h"
#include "vanon/config.h"

namespace vanon::e2e {

int64_t FloorDiv(int64_t a, int64_t b);

// A token of a group's events (a real tuple), tied to its input. Group
// records list no tokens (version 2), so a tuple is known by its events.
struct TokenLink {
  std::string token;
  bool linked = false;  // events tie it to exactly one (vin, epoch)
  std::string vin;
  int64_t epoch = 0;
  std::vector<size_t> events;  // into the event records
};

struct RecordIndex {
  // Builds every index and reports record-level violations.
  RecordIndex(const config::Config& config, const std::vector<TruthMessage>& truth,
              const std::vector<std::string>& late_messages, const std::vector<EventRecord>& events,
              const std::vector<GroupRecord>& groups, std::vector<std::string>* violations);

  const std::vector<TruthMessage>& truth;
  std::vector<uint64_t> seq;          // per truth message
  std::map<uint64_t, size_t> by_seq;  // seq -> truth message
  std::vector<bool> late;             // per truth message
  // partition -> epoch -> vin -> on-time truth messages in (ts, seq) order
  std::map<int32_t, std::map<int64_t, std::map<std::string, std::vector<size_t>>>> on_time;
  std::map<int32_t, uint64_t> truth_count, late_count;  // per partition

  // (release, partition) -> group records; the real tuples of each record
  std::map<std::pair<int64_t, int32_t>, std::vector<size_t>> groups_of;
  std::vector<std::vector<TokenLink>> links;  // per group record
  // partition -> (vin, epoch) -> releases that published that tuple
  std::map<int32_t, std::map<std::pair<std::string, int64_t>, std::vector<int64_t>>> published_in;

 private:
  void IndexTruth(const config::Config& config, const std::vector<std::string>& late_messages,
                  std::vector<std::string>* violations);
};

}  // namespace vanon::e2e

#endif  // VANON_TESTS_E2E_RECORD_INDEX_H_
