// The input topic's partition count, kept with the state it partitions.
//
// A vehicle's release state (signature, waiting tuple, DP ledger entries)
// lives in the input partition its key hashes to. Adding partitions to the
// topic makes producers hash most vehicles to another partition, whose state
// knows nothing of them: a second signature for the vehicle, DP
// contributions in two ledgers. Nothing in the events shows it, so vanon
// stores the count it was started with and stops consuming when the topic's
// count differs (deploy/RUNBOOK.md, "Input partition count changed").
#ifndef VANON_SRC_SERVICE_STORE_PARTITION_GUARD_H_
#define VANON_SRC_SERVICE_STORE_PARTITION_GUARD_H_

#include <cstdint>
#include <string>

#include "service/store/record_names.h"

namespace vanon::state {
class StateStore;
}  // namespace vanon::state

namespace vanon::service {

class PartitionGuard {
 public:
  // Meta record (store-wide) holding the count, as decimal text.
  static constexpr const char* kMetaName = kInputPartitionsMeta;  // record_names.h

  // Stores `count` if the state holds none yet (a new store, or one written
  // before the record existed), synced; otherwise compares with it.
  PartitionGuard(state::StateStore* store, int32_t count);

  // Compares the topic's current count with the stored one. A mismatch is
  // logged once and sticks until the process restarts. Returns !tripped().
  bool Check(int32_t count);

  bool tripped() const { return tripped_; }
  int32_t stored() const { return stored_; }
  // For /readyz and the log; empty while not tripped.
  const std::string& detail() const { return detail_; }

 private:
  int32_t stored_ = 0;
  bool tripped_ = false;
  std::string detail_;
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_STORE_PARTITION_GUARD_H_
