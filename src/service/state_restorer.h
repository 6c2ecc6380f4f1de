// The state changelog's reading end (docs/state.md, "State changelog"): when
// a partition is assigned, its local state is compared with what the
// changelog holds (read_committed), and replaced by it when they differ.
//
// "Differ" is decided by the newest committed release: every committed
// release writes its log entry (with its random seed) to the changelog in
// its own transaction, so equal newest entries mean local state already
// holds everything the changelog does (plus, possibly, buffered events of
// open epochs and a prepared release, which stay). Otherwise another
// instance released the partition since: the local copy is stale or
// missing, and is dropped for the changelog's, whose progress record says
// where to resume reading the input.
#ifndef VANON_SRC_SERVICE_STATE_RESTORER_H_
#define VANON_SRC_SERVICE_STATE_RESTORER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "vanon/config.h"
#include "vanon/state/state_change.h"

namespace prometheus {
class Counter;
class Gauge;
class Registry;
}  // namespace prometheus

namespace vanon::state {
class StateStore;
}  // namespace vanon::state

namespace vanon::seal {
class RecordSealer;
}  // namespace vanon::seal

namespace vanon::service {

class StateRestorer {
 public:
  // `sealer` opens every value read; a value that does not open stops the
  // restore before anything is applied (fail closed).
  StateRestorer(const config::Config& config, state::StateStore* store, const seal::RecordSealer* sealer,
                prometheus::Registry& registry);

  // Brings the partition's local state up to the changelog. Returns true
  // when it was replaced. Throws on a Kafka error or a corrupt record.
  // `committed_offset` is the group's committed offset of the partition:
  // asked first because it waits for a transaction of the previous owner
  // that is still open (KIP-447), whose changelog records a read up to the
  // last stable offset would otherwise miss.
  bool Restore(int32_t partition, const std::function<int64_t(int32_t)>& committed_offset);

  // Partitions being restored now (for /readyz). Any thread.
  std::vector<int32_t> Restoring() const;

 private:
  // One read of a partition's changelog, compacted: key -> last record.
  struct ChangelogRead {
    std::map<std::string, state::StateChange> latest;  // changelog key -> change
    std::map<std::string, std::string> releases;       // release-log store key -> value
    uint64_t records = 0;
    int64_t next_offset = 0;  // after the last record read
  };
  // `lag` (may be null) follows the offsets still to read.
  ChangelogRead ReadChangelog(int32_t partition, int64_t from, prometheus::Gauge* lag) const;
  void OpenValues(int32_t partition, const std::map<std::string, int64_t>& offsets, ChangelogRead* read) const;
  // Replaces the partition's local state with the changelog's.
  void ApplyRestore(int32_t partition, ChangelogRead* read, int64_t committed);

  const config::Config& config_;
  state::StateStore* store_;
  const seal::RecordSealer* sealer_;
  mutable std::mutex mu_;
  std::set<int32_t> restoring_;  // guarded by mu_
  prometheus::Counter& restored_;
  prometheus::Counter& up_to_date_;
  prometheus::Counter& records_;
  prometheus::Counter& seconds_;
  prometheus::Gauge& last_seconds_;
  prometheus::Gauge& lag_;
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_STATE_RESTORER_H_
