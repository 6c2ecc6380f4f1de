// Rebuilds, from the output topics and the test's ground truth alone, what
// the engine must have been given and must have decided in every release of
// every input partition, and runs one ReleaseChecker per partition over it.
//
// Nothing here comes from the service's state or its tuple builder:
// - an anonymized event names its input through payload.seq, hence its
//   vehicle; a token with events is that vehicle's tuple (of this epoch, or
//   the one it left waiting in an earlier epoch); a listed token without
//   events is a counterfeit;
// - QI codes and sensitive values are recomputed from the raw truth
//   (TruthValues), group covers read back from the published labels;
// - a tuple that is not published is given the one reason the engine must
//   have had (docs/engine.md triage), or is waiting when a later release
//   publishes it or its delay has not run out;
// - the metrics the checker cross-checks are the summary's own counts.
// On top of the checker, record-level checks: one summary per (partition,
// release), summary counts equal what the records show, each published
// event once and complete per tuple, labels, times and names as published.
#ifndef VANON_TESTS_E2E_RELEASE_RECONSTRUCTOR_H_
#define VANON_TESTS_E2E_RELEASE_RECONSTRUCTOR_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ground_truth.h"
#include "output_records.h"
#include "vanon/config.h"
#include "vanon/engine/schema.h"

namespace vanon::e2e {

// Where every valid input event of one partition ended up.
struct PartitionAccount {
  uint64_t truth_events = 0;       // valid messages produced to the partition
  uint64_t late_events = 0;        // seen in the late topic
  uint64_t published_events = 0;   // anonymized records linked to this partition
  uint64_t summary_events = 0;     // sum of the summaries' "events"
  uint64_t suppressed_events = 0;  // events of tuples reconstructed as suppressed
  uint64_t waiting_events = 0;     // events of tuples still waiting after the last release
  uint64_t unreleased_events = 0;  // on-time events in epochs after the last release
  uint64_t releases = 0;
  uint64_t published_tuples = 0;
  uint64_t published_unknown_qi = 0;    // of them, vehicles with a QI unknown to the VIN table
  uint64_t published_from_waiting = 0;  // tuples published in a later release than their epoch
  uint64_t counterfeits = 0;
  std::array<uint64_t, 3> suppressed_tuples{};  // by SuppressReason
};

struct E2eReport {
  // Human-readable sentences; empty when everything holds.
  std::vector<std::string> violations;
  std::map<int32_t, PartitionAccount> partitions;
};

class ReleaseReconstructor {
 public:
  // `partitions`: the input topic's partition count (summaries must say it).
  ReleaseReconstructor(const config::Config& config, const engine::Schema& schema, int32_t partitions);

  // Every valid message produced (malformed ones are not truth).
  void AddTruth(TruthMessage message);
  // A record of the late topic: the raw input message.
  void AddLateMessage(std::string_view message_json);
  // Records of vehicle.events.anonymized and vehicle.releases, in any order.
  void AddEventRecord(std::string_view json);
  void AddReleaseRecord(std::string_view json);

  E2eReport Check() const;

 private:
  class Run;

  const config::Config& config_;
  const engine::Schema& schema_;
  int32_t partitions_;
  std::vector<TruthMessage> truth_;
  std::vector<std::string> late_messages_;
  std::vector<EventRecord> events_;
  std::vector<GroupRecord> groups_;
  std::vector<SummaryRecord> summaries_;
  std::vector<std::string> parse_errors_;
};

}  // namespace vanon::e2e

#endif  // VANON_TESTS_E2E_RELEASE_RECONSTRUCTOR_H_
