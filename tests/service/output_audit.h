// What a downstream consumer can count on the output topics after a run
// that moved partitions, restarted or fenced instances: shares, events and
// DP counts published more than once, whether repeated publications are
// identical (an attempt recomputed with the same seed, visible to
// read_uncommitted readers or on the mock cluster, which writes no
// transaction markers) or different (two draws of one release), and
// vehicles under more than one signature.
#ifndef VANON_TESTS_SERVICE_OUTPUT_AUDIT_H_
#define VANON_TESTS_SERVICE_OUTPUT_AUDIT_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace vanon::testing {

struct OutputAudit {
  size_t shares = 0;              // distinct (release, partition) summaries
  size_t shares_repeated = 0;     // with more than one summary record
  size_t shares_differing = 0;    // ... whose summary records differ
  size_t group_ids_repeated = 0;  // a group id in more than one group record
  size_t events = 0;              // distinct input events (payload seq) published
  size_t events_repeated = 0;     // in more than one record
  size_t events_differing = 0;    // ... whose records differ (group, token)
  size_t events_without_seq = 0;
  size_t events_without_group = 0;  // their group record was never published
  size_t vehicles = 0;
  size_t vehicles_two_signatures = 0;
  size_t dp_keys = 0;                                              // release/partition keys of DP count records
  size_t dp_repeated = 0;                                          // keys counted by more than one attempt
  size_t dp_differing = 0;                                         // ... whose attempts published different records
  std::set<std::string> vins;                                      // vehicles published at least once
  std::map<std::string, std::set<std::string>> attempts_of_share;  // "release/partition" -> vanon.attempt values

  std::string Describe() const;
};

// Reads vehicle.releases, vehicle.events.anonymized and vehicle.counts.dp.
// vin_of_seq maps the payload seq marker of each valid input event to its
// VIN (the test's ground truth); events without a known seq are counted.
OutputAudit AuditOutputs(const std::string& bootstrap, const std::map<uint64_t, std::string>& vin_of_seq,
                         bool read_uncommitted = false);

}  // namespace vanon::testing

#endif  // VANON_TESTS_SERVICE_OUTPUT_AUDIT_H_
