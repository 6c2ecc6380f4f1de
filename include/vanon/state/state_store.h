// vanon's durable state, in RocksDB, scoped by input partition so a
// partition's state can be found (and later moved) on its own.
//
// Column families (see docs/state.md for the full layout):
//   events : [partition u32 BE][event ts ms u64 BE][offset u64 BE] -> BufferedEvent
//            Keyed by offset, so replaying a message rewrites the same key:
//            buffering is idempotent even if progress were ever lost.
//   meta   : [name] "/" [partition u32 BE] -> small per-partition records
//            ("progress" -> PartitionProgress, "clock", "dictionary", ...)
//   signatures : [partition u32 BE][vehicle 32 B] -> StoredSignature
//   waiting    : [partition u32 BE][vehicle 32 B] -> WaitingTuple with the
//                events it owns (EncodeWaitingTuple)
//   releases   : [partition u32 BE][release u64 BE, sign bit flipped] -> ReleaseLogEntry
//   windows    : [partition u32 BE][vehicle 32 B] -> value window (EncodeValueWindow)
// No raw identifier is ever a key or value here: events carry HMACs only.
#ifndef VANON_STATE_STATE_STORE_H_
#define VANON_STATE_STATE_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vanon/state/partition_progress.h"
#include "vanon/state/release_state.h"
#include "vanon/state/state_change.h"

namespace rocksdb {
class FileSystem;
}

namespace vanon::state {

// How far a commit must survive. The WAL alone survives a crash of the
// process (the OS still writes its page cache out); surviving a crash of the
// machine (power loss, kernel panic) takes an fsync of the WAL before the
// commit returns.
enum class Durability { kProcessCrash, kMachineCrash };

class StateStore;

// One atomic unit of the release loop: a prepared or committed release, the
// signatures, waiting tuples and meta records it changes, and the buffered
// events it consumed (deleted).
class ReleaseWrite {
 public:
  explicit ReleaseWrite(const StateStore& store);
  ~ReleaseWrite();
  ReleaseWrite(const ReleaseWrite&) = delete;
  ReleaseWrite& operator=(const ReleaseWrite&) = delete;

  void DeleteEvent(int32_t partition, int64_t ts_ms, int64_t offset);
  // Every buffered event of the partition with from_ms <= ts < to_ms: one
  // range tombstone instead of one per event.
  void DeleteEventRange(int32_t partition, int64_t from_ms, int64_t to_ms);
  // Puts an event back, e.g. after DeleteEventRange in the same batch.
  void PutEvent(int32_t partition, int64_t ts_ms, int64_t offset, std::string_view encoded);
  void PutSignature(int32_t partition, std::string_view vehicle, const StoredSignature& s);
  void DeleteSignature(int32_t partition, std::string_view vehicle);
  // Key: w.tuple.vehicle; `events` are the tuple's buffered events.
  void PutWaiting(int32_t partition, const engine::WaitingTuple& w, const std::vector<WaitingEvent>& events = {});
  void DeleteWaiting(int32_t partition, std::string_view vehicle);
  void PutWindow(int32_t partition, std::string_view vehicle, const engine::ValueWindow& w);
  void DeleteWindow(int32_t partition, std::string_view vehicle);
  void PutRelease(int32_t partition, int64_t release, const ReleaseLogEntry& e);
  void DeleteRelease(int32_t partition, int64_t release);
  void PutMeta(int32_t partition, std::string_view name, std::string_view value);
  // A point delete: a tombstone in the state changelog (Changes()).
  void DeleteMeta(int32_t partition, std::string_view name);
  void SetProgress(int32_t partition, const PartitionProgress& p);

  // The batch's puts and deletes, in order, for the state changelog.
  // DeleteEventRange is left out: it only removes the epoch's buffered
  // events, which the changelog never holds (see changelog_writer.h).
  std::vector<StateChange> Changes() const;

 private:
  friend class StateStore;
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

// The partition of meta records about the whole store rather than one
// input partition (e.g. the input topic's partition count).
inline constexpr int32_t kStoreWideMeta = -1;

class StateStore {
 public:
  // Opens or creates the store. Throws std::runtime_error with the path on failure.
  static std::unique_ptr<StateStore> Open(const std::string& dir);
  // The same over another file system (tests: one that loses unsynced writes).
  static std::unique_ptr<StateStore> Open(const std::string& dir, std::shared_ptr<rocksdb::FileSystem> fs);
  ~StateStore();

  PartitionProgress LoadProgress(int32_t partition) const;
  // Visits buffered events of one partition in (ts, offset) order; the
  // visitor returns false to stop.
  void ScanEvents(int32_t partition,
                  const std::function<bool(int64_t ts_ms, int64_t offset, std::string_view value)>& fn) const;
  uint64_t CountEvents(int32_t partition) const;
  // Whether the events family holds an event of the partition with
  // ts < ts_ms: events a release kept there (stores written before waiting
  // records carried their events, or a tuple too large for one record).
  bool HasEventsBefore(int32_t partition, int64_t ts_ms) const;
  // Visits the events stored inside the partition's waiting records, record
  // by record (vehicle key order). A record that does not decode throws
  // std::runtime_error (corrupt state).
  void ScanWaitingEvents(int32_t partition,
                         const std::function<void(int64_t ts_ms, int64_t offset, std::string_view value)>& fn) const;

  // kMachineCrash for whatever a Kafka transaction's commit relies on (the
  // prepared release's seed, a DP ledger charge): lost after the commit, it
  // would make a restart publish the release differently.
  void Commit(ReleaseWrite& w, Durability durability = Durability::kProcessCrash);
  std::optional<std::string> GetMeta(int32_t partition, std::string_view name) const;
  // One lookup per vehicle key (RocksDB MultiGet), result in the same order.
  std::vector<std::optional<StoredSignature>> GetSignatures(int32_t partition,
                                                            const std::vector<std::string>& vehicles) const;
  // Visits the partition's signatures in key order; fn returns false to stop.
  // A record that does not decode throws std::runtime_error (corrupt state).
  void ScanSignatures(int32_t partition,
                      const std::function<bool(std::string_view vehicle, const StoredSignature&)>& fn) const;
  // Value windows, as GetSignatures and ScanSignatures.
  std::vector<std::optional<engine::ValueWindow>> GetWindows(int32_t partition,
                                                             const std::vector<std::string>& vehicles) const;
  void ScanWindows(int32_t partition,
                   const std::function<bool(std::string_view vehicle, const engine::ValueWindow&)>& fn) const;
  // All waiting tuples of the partition, sorted by vehicle key.
  std::vector<engine::WaitingTuple> LoadWaiting(int32_t partition) const;
  std::optional<ReleaseLogEntry> GetRelease(int32_t partition, int64_t release) const;
  // Visits the release log of a partition from the newest release backwards.
  void ScanReleasesNewestFirst(int32_t partition,
                               const std::function<bool(int64_t release, const ReleaseLogEntry&)>& fn) const;
  uint64_t CountAllEvents() const;

  // Drops everything the store holds for the partition and writes
  // `records` instead, in one atomic batch (state_restore.cc): a partition
  // restored from the state changelog.
  void ReplacePartition(int32_t partition, const std::vector<StateChange>& records);
  // Visits every record the store holds for the partition (the families'
  // keys with its prefix, meta records with its suffix), family by family
  // in key order: the local state a new state changelog is seeded from.
  // fn returns false to stop.
  void VisitPartition(int32_t partition, const std::function<bool(const StateChange&)>& fn) const;

  // Live bytes: SST files plus memtables, over all column families.
  uint64_t ApproximateBytes() const;
  void Flush();

 private:
  friend class ReleaseWrite;
  StateStore();
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace vanon::state

#endif  // VANON_STATE_STATE_STORE_H_
