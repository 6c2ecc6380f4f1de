// The state changelog's reading end (docs/state.md, "State changelog"): when
// a partition is assigned, its local state and the changelog (read
// read_committed) are brought to the same state, before it is consumed.
//
// Which side wins is decided by the newest committed release: every
// committed release writes its log entry (its seed zeroed, as in local
// state: a committed release is never computed again) to the changelog in
// its own transaction, so equal newest entries mean local state
// already holds everything the changelog does (plus, possibly, buffered
// events of open epochs and a prepared release, which stay). If the
// changelog's is newer, or the two differ, another instance released the
// partition since: the local copy is stale or missing, and is dropped for
// the changelog's, whose progress record says where to resume reading the
// input. If local state's is newer and continues the changelog's (or the
// changelog holds none), this instance released the partition without the
// changelog (it ran before the changelog existed, or with it turned off):
// local state is the only copy of those releases and seeds the changelog
// (ChangelogWriter::Seed), instead of being wiped and the input released a
// second time with new seeds.
#ifndef VANON_SRC_SERVICE_RESTORE_STATE_RESTORER_H_
#define VANON_SRC_SERVICE_RESTORE_STATE_RESTORER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "vanon/config.h"
#include "vanon/state/release_state.h"
#include "service/store/record_names.h"
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

class ChangelogWriter;

class StateRestorer {
 public:
  // `sealer` opens every value read; a value that does not open stops the
  // restore before anything is applied (fail closed). `writer` seeds the
  // changelog (may be null where nothing can need it: a restore into an
  // empty store).
  StateRestorer(const config::Config& config, state::StateStore* store, const seal::RecordSealer* sealer,
                ChangelogWriter* writer, prometheus::Registry& registry);

  // Brings the partition's local state and its changelog to the same state
  // (see above). Returns true when local state was replaced. Throws on a
  // Kafka error, a corrupt record, or a changelog another instance is still
  // seeding. `committed_offset` is the group's committed offset of the
  // partition: asked first because it waits for a transaction of the
  // previous owner that is still open (KIP-447), whose changelog records a
  // read up to the last stable offset would otherwise miss.
  bool Restore(int32_t partition, const std::function<int64_t(int32_t)>& committed_offset);

  // At start-up, before the consumer joins the group: every partition of
  // [0, partitions) whose local state holds releases the changelog lacks
  // (made with the changelog off) is seeded now, so that its state reaches
  // the changelog whichever instance the group assigns it to (the
  // assignment after an upgrade need not be the one before). Partitions
  // whose changelog is ahead are left to the restore on assignment.
  void SeedHeldPartitions(int32_t partitions);

  // The releases topic's partition count: a partition that neither the
  // changelog nor local state knows is refused when that topic holds its
  // releases (RefuseIfReleasedElsewhere). 0 (the default): not checked.
  void SetReleasesPartitions(int32_t partitions) { releases_partitions_ = partitions; }

  // Partitions being restored now (for /readyz). Any thread.
  std::vector<int32_t> Restoring() const;

  // Meta record in the changelog only (never in local state), while a seed
  // runs: the newest release of the seeding state, so that an interrupted
  // seed is never restored as if it were the partition's state.
  static constexpr const char* kSeedingMeta = service::kSeedingMeta;  // record_names.h

 private:
  struct Newest {  // a partition's newest committed (or prepared) release
    int64_t release = 0;
    state::ReleaseLogEntry entry;
  };
  // One read of a partition's changelog, compacted: key -> last record.
  struct ChangelogRead {
    std::map<std::string, state::StateChange> latest;  // changelog key -> change
    std::map<std::string, std::string> releases;       // release-log store key -> value
    std::optional<int64_t> seeding;                    // kSeedingMeta's release, while a seed is unfinished
    std::optional<Newest> prepared;                    // ChangelogWriter::kPreparedMeta: a release prepared last
    uint64_t records = 0;
    int64_t next_offset = 0;  // after the last record read
  };
  enum class Action { kKeep, kReplace, kSeed, kRefuse };

  // `lag` (may be null) follows the offsets still to read.
  ChangelogRead ReadChangelog(int32_t partition, int64_t from, prometheus::Gauge* lag) const;
  // True when the changelog read from the local offset mark on holds
  // nothing local state lacks and local state nothing the changelog lacks.
  bool TailInSync(int32_t partition, const std::optional<Newest>& local, const ChangelogRead& tail) const;
  Action Decide(int32_t partition, const std::optional<Newest>& local, const ChangelogRead& read,
                std::string* refusal) const;
  // The tail from the local mark, then if needed the whole changelog:
  // *read, the records read, where the tail began (0: none), and Decide's
  // answer (kKeep when the tail shows local state in sync).
  Action Check(int32_t partition, const std::optional<Newest>& local, ChangelogRead* read, uint64_t* records,
               int64_t* from, std::string* refusal);
  void OpenValues(int32_t partition, const std::map<std::string, int64_t>& offsets, ChangelogRead* read) const;
  // Replaces the partition's local state with the changelog's.
  void ApplyRestore(int32_t partition, ChangelogRead* read, int64_t committed);
  // Writes what local state holds and the changelog does not.
  // `fenced`: in the rebalance callback that assigned the partition, each
  // transaction commits its offset with the group's metadata; at start-up
  // (SeedHeldPartitions) there is no group membership to fence with.
  void Seed(int32_t partition, const Newest& local, const ChangelogRead& read, bool fenced);
  void RefuseIfReleasedElsewhere(int32_t partition) const;
  // The changelog's newest committed release, taken out of read->releases,
  // when local state holds it as prepared and its summary is not on the
  // releases topic: a transaction that never committed, on a broker that
  // shows such records. Blocks on Kafka.
  struct Dropped {
    int64_t release;
    std::map<std::string, std::string>::node_type entry;
  };
  std::optional<Dropped> DropUnpublishedCommit(int32_t partition, ChangelogRead* read) const;
  // Local state kept: a release the changelog says was prepared after local
  // state's newest committed one (by another owner) is resumed with its seed.
  void AdoptPrepared(int32_t partition, const std::optional<Newest>& local, const ChangelogRead& read);

  const config::Config& config_;
  state::StateStore* store_;
  const seal::RecordSealer* sealer_;
  ChangelogWriter* writer_;
  int32_t releases_partitions_ = 0;
  mutable std::mutex mu_;
  std::set<int32_t> restoring_;  // guarded by mu_
  prometheus::Counter& restored_;
  prometheus::Counter& up_to_date_;
  prometheus::Counter& seeded_;
  prometheus::Counter& records_;
  prometheus::Counter& seeded_records_;
  prometheus::Counter& seconds_;
  prometheus::Gauge& last_seconds_;
  prometheus::Gauge& lag_;
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_RESTORE_STATE_RESTORER_H_
