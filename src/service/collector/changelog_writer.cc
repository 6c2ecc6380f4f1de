#include "service/collector/changelog_writer.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>
#include <librdkafka/rdkafkacpp.h>
#include <spdlog/spdlog.h>

#include "base/coding.h"
#include "service/store/record_names.h"
#include "service/support/fault_injection.h"
#include "vanon/kafka/consumer.h"
#include "vanon/kafka/transactional_producer.h"
#include "vanon/release/event_buffer.h"
#include "vanon/seal/record_sealer.h"
#include "vanon/state/state_store.h"

namespace vanon::service {

namespace {
const char* FamilyName(state::StateFamily f) {
  switch (f) {
    case state::StateFamily::kEvents:
      return "events";
    case state::StateFamily::kMeta:
      return "meta";
    case state::StateFamily::kSignatures:
      return "signatures";
    case state::StateFamily::kWaiting:
      return "waiting";
    case state::StateFamily::kReleases:
      return "releases";
    case state::StateFamily::kWindows:
      return "windows";
  }
  return "?";
}
}  // namespace

std::string ChangelogKey(int32_t partition, const state::StateChange& c) {
  std::string k;
  k.reserve(5 + c.key.size());
  base::PutBigEndian32(&k, static_cast<uint32_t>(partition));
  k.push_back(static_cast<char>(c.family));
  k.append(c.key);
  return k;
}

bool DecodeChangelogKey(std::string_view key, int32_t* partition, state::StateChange* c) {
  if (key.size() < 6) return false;
  const auto p = static_cast<uint32_t>(base::DecodeBigEndian(key, 0, 4));
  const auto f = static_cast<uint8_t>(key[4]);
  if (f < static_cast<uint8_t>(state::StateFamily::kEvents) || f > static_cast<uint8_t>(state::StateFamily::kWindows))
    return false;
  // A restore writes the store key as it is (StateStore::ReplacePartition),
  // so it must be a key of this partition: the partition's 4 bytes start
  // every family's key but meta's, which end with "/" and them. Otherwise a
  // damaged or crafted record would overwrite another partition's state.
  const std::string_view own = key.substr(0, 4), store = key.substr(5);
  const bool in_partition = f == static_cast<uint8_t>(state::StateFamily::kMeta)
                                ? store.size() >= 5 && store[store.size() - 5] == '/' && store.ends_with(own)
                                : store.starts_with(own);
  if (!in_partition) return false;
  *partition = static_cast<int32_t>(p);
  c->family = static_cast<state::StateFamily>(f);
  c->key.assign(key.substr(5));
  return true;
}

ChangelogWriter::ChangelogWriter(const config::Config& config, state::StateStore* store,
                                 kafka::TransactionalProducer* producer, seal::RecordSealer* sealer,
                                 kafka::TransactionalProducer* prepare_producer)
    : config_(config), store_(store), producer_(producer), sealer_(sealer), prepare_producer_(prepare_producer) {
  if (sealer_ == nullptr) throw std::invalid_argument("ChangelogWriter: no sealer (the changelog is never in clear)");
}

size_t ChangelogWriter::ProduceShare(int32_t partition, int64_t epoch, const state::ReleaseWrite& apply,
                                     const std::optional<std::string>& ledger_record,
                                     const kafka::KafkaHeaders& headers) {
  // What the changelog needs besides the apply batch: records local state
  // already holds, or must not hold.
  state::ReleaseWrite extra(*store_);
  // The DP ledger is committed to local state on the computing thread,
  // before any noise it pays for is drawn; the computation hands over the
  // record it left there. Only a share that did not read the ledger (no
  // charge due) has the stored one, unchanged since an earlier release.
  std::optional<std::string> ledger = ledger_record;
  if (!ledger) ledger = store_->GetMeta(partition, kDpLedgerMeta);
  if (ledger) extra.PutMeta(partition, kDpLedgerMeta, *ledger);
  // The prepare record (PublishPrepared) is moot once the release commits:
  // its seed leaves the changelog with it. No later prepare record of the
  // partition can exist yet (its next share is prepared after this apply).
  extra.DeleteMeta(partition, kPreparedMeta);

  size_t n = 0;
  const bool count_families = spdlog::should_log(spdlog::level::debug);
  std::map<std::pair<state::StateFamily, bool>, size_t> by_family;  // (family, tombstone) -> records
  for (const state::ReleaseWrite* w : {&apply, static_cast<const state::ReleaseWrite*>(&extra)}) {
    for (const state::StateChange& c : w->Changes()) {
      ProduceChange(producer_, partition, c, headers);
      if (count_families) ++by_family[{c.family, !c.value}];
      ++n;
    }
  }
  if (count_families) {
    std::string counts;
    for (const auto& [f, k] : by_family) {
      counts += fmt::format(" {}{}={}", FamilyName(f.first), f.second ? "(deleted)" : "", k);
    }
    spdlog::debug("release {} partition {}: {} changelog records:{}", epoch, partition, n, counts);
  }
  return n;
}

void ChangelogWriter::ProduceChange(kafka::TransactionalProducer* via, int32_t partition, const state::StateChange& c,
                                    const kafka::KafkaHeaders& headers) {
  const std::string& topic = config_.state.changelog.topic;
  const std::string key = ChangelogKey(partition, c);
  if (c.value) {
    via->Produce(topic, partition, key, sealer_->Seal({topic, partition, key}, *c.value), headers);
  } else {
    via->Produce(topic, partition, key, std::string_view(), headers);
  }
}

std::string ChangelogWriter::EncodePrepared(int64_t release, const state::ReleaseLogEntry& e) {
  std::string v;
  base::PutBigEndian64(&v, static_cast<uint64_t>(release) ^ (uint64_t{1} << 63));
  v += e.Encode();
  return v;
}

std::optional<ChangelogWriter::Prepared> ChangelogWriter::DecodePrepared(int32_t partition, std::string_view value) {
  if (value.size() < 8) return std::nullopt;
  std::optional<state::ReleaseLogEntry> e = state::ReleaseLogEntry::Decode(value.substr(8));
  if (!e || e->status != state::ReleaseStatus::kPrepared) return std::nullopt;
  const auto release = static_cast<int64_t>(base::DecodeBigEndian(value, 0, 8) ^ (uint64_t{1} << 63));
  return Prepared{partition, release, std::move(*e)};
}

void ChangelogWriter::PublishPrepared(const std::vector<Prepared>& prepared) {
  if (prepared.empty()) return;
  if (prepare_producer_ == nullptr) throw std::logic_error("ChangelogWriter: no prepare producer");
  prepare_producer_->BeginTransaction();
  try {
    for (const Prepared& p : prepared) {
      ProduceChange(prepare_producer_, p.partition,
                    {state::StateFamily::kMeta, state::MetaRecordKey(p.partition, kPreparedMeta),
                     EncodePrepared(p.release, p.entry)},
                    {});
    }
    prepare_producer_->CommitTransaction();
  } catch (const kafka::AbortableKafkaError&) {
    prepare_producer_->AbortTransaction();
    throw;
  }
}

void ChangelogWriter::SendOffsets(const std::map<int32_t, int64_t>& offsets) {
  if (offsets.empty()) return;
  if (consumer_ == nullptr) throw std::logic_error("ChangelogWriter: no consumer attached");
  std::unique_ptr<RdKafka::ConsumerGroupMetadata> group = consumer_->GroupMetadata();
  if (!group) throw kafka::AbortableKafkaError("changelog: no consumer group metadata");
  producer_->SendOffsets(config_.kafka.topics.input, offsets, *group);
}

void ChangelogWriter::CommitOffsets(const std::map<int32_t, int64_t>& resume_offsets) { SendOffsets(resume_offsets); }

size_t ChangelogWriter::Seed(int32_t partition, const std::vector<state::StateChange>& changes, int64_t resume_offset) {
  std::map<int32_t, int64_t> offsets;
  if (resume_offset >= 0) offsets[partition] = resume_offset;
  const auto max_records = static_cast<size_t>(config_.state.changelog.seed_transaction_records);
  size_t i = 0;
  while (i < changes.size()) {
    producer_->BeginTransaction();
    size_t bytes = 0, n = 0;
    try {
      for (; i < changes.size() && n < max_records && bytes < kSeedBytes; ++i, ++n) {
        const state::StateChange& c = changes[i];
        ProduceChange(producer_, partition, c, {});
        bytes += c.key.size() + (c.value ? c.value->size() : 0);
      }
      SendOffsets(offsets);
      producer_->CommitTransaction();
    } catch (const kafka::AbortableKafkaError&) {
      producer_->AbortTransaction();
      throw;
    } catch (const kafka::FencedByGroupError&) {
      producer_->AbortTransaction();
      throw;
    }
    if (i < changes.size()) FaultPoint("changelog.mid_seed");
  }
  return changes.size();
}

}  // namespace vanon::service
