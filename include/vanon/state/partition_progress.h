// What one input partition has done so far: the next offset to read and the
// counters that make the accounting identity checkable after any restart:
//   consumed = accepted + rejected
//   accepted = late + released + suppressed + (events still buffered)
// Stored in the same RocksDB write batch as the state those counts describe.
#ifndef VANON_STATE_PARTITION_PROGRESS_H_
#define VANON_STATE_PARTITION_PROGRESS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace vanon::state {

struct PartitionProgress {
  int64_t next_offset = -1;  // -1: nothing consumed yet
  // After a restore from the state changelog the input is read again from
  // next_offset; offsets below replay_until were already counted (and
  // routed to the DLQ or late topic) by the previous owner: they are only
  // buffered again, not counted. -1: no replay.
  int64_t replay_until = -1;
  uint64_t consumed = 0;
  uint64_t accepted = 0;
  uint64_t unknown_vin = 0;
  uint64_t late = 0;                         // accepted but behind the watermark: routed, never buffered
  uint64_t released = 0;                     // events published in a committed release
  uint64_t suppressed = 0;                   // events of suppressed tuples
  uint64_t releases = 0;                     // releases committed (empty ones included)
  std::map<std::string, uint64_t> rejected;  // by reason name

  uint64_t rejected_total() const;
  std::string Encode() const;
  // Returns nullopt on a record it cannot read (never crashes on bad bytes).
  static std::optional<PartitionProgress> Decode(std::string_view bytes);
};

}  // namespace vanon::state

#endif  // VANON_STATE_PARTITION_PROGRESS_H_
