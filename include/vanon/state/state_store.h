// vanon's durable state, in RocksDB, scoped by input partition so a
// partition's state can be found (and later moved) on its own.
//
// Column families (see docs/state.md for the full layout):
//   events : [partition u32 BE][event ts ms u64 BE][offset u64 BE] -> BufferedEvent
//            Keyed by offset, so replaying a message rewrites the same key:
//            buffering is idempotent even if progress were ever lost.
//   meta   : "progress/" [partition u32 BE] -> PartitionProgress
// No raw identifier is ever a key or value here: events carry HMACs only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "vanon/state/partition_progress.h"

namespace vanon {

// One atomic unit of ingestion: the events of a poll batch and the progress
// (offsets, counters) they lead to.
// Writes go straight into a RocksDB WriteBatch: no intermediate copies on
// the ingestion hot path.
class StateStore;
class IngestWrite {
 public:
  explicit IngestWrite(const StateStore& store);
  ~IngestWrite();
  IngestWrite(const IngestWrite&) = delete;
  IngestWrite& operator=(const IngestWrite&) = delete;
  void PutEvent(int32_t partition, int64_t ts_ms, int64_t offset, std::string_view encoded);
  void SetProgress(int32_t partition, const PartitionProgress& p);
  size_t events() const { return events_; }

 private:
  friend class StateStore;
  struct Rep;
  std::unique_ptr<Rep> rep_;
  size_t events_ = 0;
};


class StateStore {
 public:
  // Opens or creates the store. Throws std::runtime_error with the path on failure.
  static std::unique_ptr<StateStore> Open(const std::string& dir);
  ~StateStore();

  PartitionProgress LoadProgress(int32_t partition) const;
  // Applies the write atomically (WAL on, so it survives a process crash).
  void Commit(IngestWrite& w);

  // Visits buffered events of one partition in (ts, offset) order; the
  // visitor returns false to stop.
  void ScanEvents(int32_t partition,
                  const std::function<bool(int64_t ts_ms, int64_t offset, std::string_view value)>& fn) const;
  uint64_t CountEvents(int32_t partition) const;
  uint64_t CountAllEvents() const;

  // Live bytes: SST files plus memtables, over all column families.
  uint64_t ApproximateBytes() const;
  void Flush();

 private:
  friend class IngestWrite;
  StateStore();
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace vanon
