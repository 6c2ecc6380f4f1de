// The state changelog's producing end (docs/state.md, "State changelog").
//
// A release share's durable state changes (its apply batch: signatures,
// waiting tuples and the events they own, sensitive dictionary, DP ledger
// and running-total counters; plus the epoch clock, the partition's
// progress and the committed release-log entry) go to the changelog topic
// inside the release's own Kafka transaction, together with the input
// offset a new owner resumes at. So whatever a read_committed reader finds
// in the changelog is exactly the state after the last committed release.
//
// What is not changelogged (nor stored locally): the buffered events of open epochs. The offset
// committed with a share is the lowest offset of an event that is neither in
// a committed release nor in changelogged state (the events of still-waiting
// tuples are changelogged), so a new owner reads those events again from the
// input topic.
//
// Record: key = partition u32 BE, family byte, the store's key; value = the
// store's value sealed (seal/record_sealer.h: AES-256-GCM, bound to topic,
// partition and key), or a tombstone (null) for a deletion. Store values
// are never empty, so an empty value read back is also a deletion. Keys
// hold only partition numbers, family codes, HMACs and names of records.
#ifndef VANON_SRC_SERVICE_COLLECTOR_CHANGELOG_WRITER_H_
#define VANON_SRC_SERVICE_COLLECTOR_CHANGELOG_WRITER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vanon/config.h"
#include "vanon/kafka/producer.h"  // KafkaHeaders
#include "service/store/released_state.h"
#include "service/store/record_names.h"
#include "vanon/state/release_state.h"
#include "vanon/state/state_change.h"

namespace vanon::kafka {
class Consumer;
class TransactionalProducer;
}  // namespace vanon::kafka

namespace vanon::release {
class EventBuffer;
}  // namespace vanon::release

namespace vanon::seal {
class RecordSealer;
}  // namespace vanon::seal

namespace vanon::state {
class ReleaseWrite;
class StateStore;
}  // namespace vanon::state

namespace vanon::service {

// One changelog record key, and back.
std::string ChangelogKey(int32_t partition, const state::StateChange& c);
bool DecodeChangelogKey(std::string_view key, int32_t* partition, state::StateChange* c);

class ChangelogWriter {
 public:
  // `sealer` seals every value (never null: the changelog is never in clear).
  // `prepare_producer` (a transactional id of its own) commits the prepare
  // records while `producer` may hold a release transaction open.
  ChangelogWriter(const config::Config& config, state::StateStore* store, kafka::TransactionalProducer* producer,
                  seal::RecordSealer* sealer, kafka::TransactionalProducer* prepare_producer = nullptr);

  // The input consumer whose group the offsets are committed to. Before the
  // first release.
  void Attach(const kafka::Consumer* consumer) { consumer_ = consumer; }

  // Release thread, inside the open transaction: the share's apply batch
  // (its changes and the committed release's records, AddCommittedRecords)
  // as it will be committed locally, then the partition's DP ledger
  // (`ledger_record`, DpPublisher::Result) and the deletion of its prepare
  // record. Returns the number of records produced.
  size_t ProduceShare(int32_t partition, int64_t epoch, const state::ReleaseWrite& apply,
                      const std::optional<std::string>& ledger_record, const kafka::KafkaHeaders& headers);
  // Release thread, inside the open transaction, after every share.
  void CommitOffsets(const std::map<int32_t, int64_t>& resume_offsets);

  // Consuming thread, when shares are prepared (after the local prepare
  // batch, before they are queued for publication): each share's kPrepared
  // release-log entry, its seed included, as the partition's meta record
  // kPreparedMeta, in one transaction of the prepare producer, committed
  // before any record of the shares is produced. Whatever attempt at a
  // release a reader may see (read_uncommitted, or an aborted transaction
  // of an instance that lost the partition), the partition's next owner
  // finds its seed and recomputes that attempt byte for byte
  // (StateRestorer). Each share's own transaction deletes the record again.
  struct Prepared {
    int32_t partition = 0;
    int64_t release = 0;
    state::ReleaseLogEntry entry;
  };
  void PublishPrepared(const std::vector<Prepared>& prepared);
  static constexpr const char* kPreparedMeta = service::kPreparedMeta;  // record_names.h
  // The record's value: the release id (BE64, sign bit flipped as in
  // release keys), then the entry.
  static std::string EncodePrepared(int64_t release, const state::ReleaseLogEntry& e);
  static std::optional<Prepared> DecodePrepared(int32_t partition, std::string_view value);

  // A changelog seeded from the partition's local state (an instance that
  // ran without the changelog turns it on; state_restorer.cc). Consuming
  // thread, in the rebalance callback that assigned the partition: no
  // release transaction is open then (the revocation before it finished
  // every batch, and the consumer's eager assign() allows no other order).
  // Writes `changes` in order, in transactions of at most
  // state.changelog.seed_transaction_records records or kSeedBytes bytes,
  // each committing `resume_offset` (if >= 0) for the partition with the
  // consumer group's metadata, so that a member that lost the partition
  // meanwhile is fenced. A seed that stops midway leaves a prefix of
  // `changes` committed (fault point changelog.mid_seed: after a committed
  // transaction that more records follow). Returns the records produced.
  size_t Seed(int32_t partition, const std::vector<state::StateChange>& changes, int64_t resume_offset);
  static constexpr size_t kSeedBytes = 4 << 20;

 private:
  // Every record vanon writes to the changelog topic goes through here
  // (sealed), by `via`: producer_ or prepare_producer_.
  void ProduceChange(kafka::TransactionalProducer* via, int32_t partition, const state::StateChange& c,
                     const kafka::KafkaHeaders& headers);
  void SendOffsets(const std::map<int32_t, int64_t>& offsets);

  const config::Config& config_;
  state::StateStore* store_;
  kafka::TransactionalProducer* producer_;
  seal::RecordSealer* sealer_;
  kafka::TransactionalProducer* prepare_producer_;
  const kafka::Consumer* consumer_ = nullptr;
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_COLLECTOR_CHANGELOG_WRITER_H_
