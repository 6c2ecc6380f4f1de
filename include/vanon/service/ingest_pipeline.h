// One poll batch in, one atomic RocksDB write out: accepted events (keyed by
// HMAC, with decoded QIs) plus each partition's new offset and counters;
// rejected messages go to the DLQ, which is flushed and checked before the
// offsets that skip them are stored. So a crash anywhere replays, never loses.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "vanon/config.h"
#include "vanon/ingest/buffered_event.h"
#include "vanon/ingest/event_parser.h"
#include "vanon/kafka/consumer.h"
#include "vanon/service/qi_resolver.h"
#include "vanon/state/partition_progress.h"

namespace vanon {

class IngestMetrics;
class Producer;
class StateStore;

// DLQ values above this size are cut to their first kDlqTruncatedBytes, with
// a vanon.truncated_from header giving the original size.
inline constexpr size_t kDlqMaxValueBytes = 512 * 1024;
inline constexpr size_t kDlqTruncatedBytes = 64 * 1024;

// Where the optional per-event values sit in BufferedEvent::extras.
struct BufferLayout {
  int sensitive = -1;  // index of the sensitive attribute's raw value, -1 if none
};

class IngestPipeline {
 public:
  // hmac_key must be non-empty. dlq and metrics may be null in tests.
  IngestPipeline(const Config& config, std::string_view hmac_key, StateStore* store,
                 Producer* dlq, IngestMetrics* metrics);
  ~IngestPipeline();

  // Offset to resume a newly assigned partition from (nullopt: earliest).
  std::optional<int64_t> ResumeOffset(int32_t partition);
  void ForgetPartitions(const std::vector<int32_t>& partitions);

  // Processes a batch. Throws std::runtime_error if the DLQ cannot confirm
  // delivery; then nothing of the batch is recorded and it will be replayed.
  void Process(const std::vector<InputMessage>& batch, int64_t now_ms);

  const BufferLayout& layout() const { return layout_; }
  // Sum over the partitions this instance has seen since start.
  PartitionProgress Totals() const;
  int64_t NextOffset(int32_t partition) const;

 private:
  PartitionProgress& Progress(int32_t partition);

  // What ingestion derives from a VIN, cached because a fleet's vehicles send
  // many events each. Memory only (raw VINs never leave the process); bounded.
  struct VehicleInfo {
    HmacToken key;
    std::vector<std::string> qi;
    bool known = false;
    std::string last_trip;
    HmacToken last_trip_key;
  };
  VehicleInfo& Lookup(const ParsedEvent& e);

  const Config& config_;
  StateStore* store_;
  Producer* dlq_;
  IngestMetrics* metrics_;
  BufferLayout layout_;
  std::unique_ptr<QiResolver> resolver_;
  std::unique_ptr<EventParser> parser_;
  std::unique_ptr<KeyedHasher> hasher_;
  std::map<int32_t, PartitionProgress> progress_;
  std::unordered_map<std::string, VehicleInfo> vehicles_;
  ParsedEvent parsed_;
  BufferedEvent buffered_;
  std::string encoded_;
};

}  // namespace vanon
