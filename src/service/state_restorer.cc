#include "state_restorer.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <map>
#include <optional>
#include <stdexcept>

#include "changelog_writer.h"
#include "vanon/kafka/committed_reader.h"
#include "vanon/seal/record_sealer.h"
#include "vanon/state/state_store.h"

namespace vanon::service {

namespace {

// The whole read of one partition's changelog. It runs in the rebalance
// callback, so it should stay below the consumer's max.poll.interval.ms
// (5 minutes by default); raise both for very large partitions.
constexpr int kRestoreTimeoutMs = 300000;

prometheus::Counter& RestoreCounter(prometheus::Registry& r, const std::string& outcome) {
  return prometheus::BuildCounter()
      .Name("vanon_state_restores_total")
      .Help("Partition assignments checked against the state changelog, by outcome")
      .Register(r)
      .Add({{"outcome", outcome}});
}

// The newest committed release-log entry among `records` (release keys sort
// by release id), or nullopt.
std::optional<state::ReleaseLogEntry> NewestCommitted(int32_t partition,
                                                      const std::map<std::string, std::string>& releases) {
  for (auto it = releases.rbegin(); it != releases.rend(); ++it) {
    std::optional<state::ReleaseLogEntry> e = state::ReleaseLogEntry::Decode(it->second);
    if (!e) throw std::runtime_error("changelog: corrupt release-log entry of partition " + std::to_string(partition));
    if (e->status == state::ReleaseStatus::kCommitted) return e;
  }
  return std::nullopt;
}

bool SameRelease(const std::optional<state::ReleaseLogEntry>& a, const std::optional<state::ReleaseLogEntry>& b) {
  if (!a || !b) return !a && !b;
  return a->seed == b->seed && a->summary == b->summary;
}

// Local-only meta record (never changelogged): the changelog offset up to
// which local state is known to hold everything the changelog does. Set
// after every check or restore; dropped with the partition's state.
constexpr const char* kChangelogOffsetMeta = "changelog_offset";

int64_t LocalChangelogOffset(const state::StateStore& store, int32_t partition) {
  std::optional<std::string> v = store.GetMeta(partition, kChangelogOffsetMeta);
  if (!v) return 0;
  try {
    return std::stoll(*v);
  } catch (const std::exception&) {
    throw std::runtime_error("state: corrupt changelog offset of partition " + std::to_string(partition));
  }
}

void SaveLocalChangelogOffset(state::StateStore* store, int32_t partition, int64_t offset) {
  state::ReleaseWrite w(*store);
  w.PutMeta(partition, kChangelogOffsetMeta, std::to_string(offset));
  store->Commit(w);
}

std::optional<state::ReleaseLogEntry> LocalNewestCommitted(const state::StateStore& store, int32_t partition) {
  std::optional<state::ReleaseLogEntry> local;
  store.ScanReleasesNewestFirst(partition, [&](int64_t, const state::ReleaseLogEntry& e) {
    if (e.status != state::ReleaseStatus::kCommitted) return true;
    local = e;
    return false;
  });
  return local;
}

}  // namespace

// Reads the partition's changelog from `from` to its last stable offset,
// applying compaction's rule itself: the last record of a key wins, a
// tombstone removes it. Values are opened only once the read is complete:
// a record a later one of its key superseded is what compaction would have
// dropped (after a key rotation, under a key the ring may no longer hold).
StateRestorer::ChangelogRead StateRestorer::ReadChangelog(int32_t partition, int64_t from,
                                                          prometheus::Gauge* lag) const {
  const config::Config& config = config_;
  ChangelogRead read;
  std::map<std::string, int64_t> offsets;  // changelog key -> offset of its live record
  read.next_offset = from;
  kafka::ReadCommitted(
      config.kafka.bootstrap, config.kafka.properties, config.kafka.consumer_properties, config.state.changelog.topic,
      partition, from,
      [&](const kafka::CommittedRecord& r) {
        ++read.records;
        read.next_offset = r.offset + 1;
        if (lag != nullptr) lag->Set(static_cast<double>(r.end - read.next_offset));
        int32_t p = -1;
        state::StateChange c;
        if (!DecodeChangelogKey(r.key, &p, &c) || p != partition) {
          throw std::runtime_error("changelog: a record of partition " + std::to_string(partition) +
                                   " has a malformed key");
        }
        std::string k = r.key.data() ? std::string(r.key) : std::string();
        if (r.value.empty()) {
          read.latest.erase(k);
          offsets.erase(k);
          return true;
        }
        c.value = std::string(r.value);
        offsets[k] = r.offset;
        read.latest[k] = std::move(c);
        return true;
      },
      kRestoreTimeoutMs);
  if (lag != nullptr) lag->Set(0);
  OpenValues(partition, offsets, &read);
  return read;
}

// Opens every live value in place; the first that does not open stops the
// restore before anything is applied (fail closed).
void StateRestorer::OpenValues(int32_t partition, const std::map<std::string, int64_t>& offsets,
                               ChangelogRead* read) const {
  const std::string& topic = config_.state.changelog.topic;
  for (auto& [k, c] : read->latest) {
    seal::Opened opened = sealer_->Open({topic, partition, k}, *c.value);
    if (opened.status != seal::OpenStatus::kOk) {
      throw std::runtime_error("changelog: the record of partition " + std::to_string(partition) + " at offset " +
                               std::to_string(offsets.at(k)) + " " +
                               seal::RecordSealer::Describe(opened, config_.security.state_keys_env) +
                               "; nothing of the partition was restored");
    }
    c.value = std::move(opened.plaintext);
    if (c.family == state::StateFamily::kReleases) read->releases[c.key] = *c.value;
  }
}

StateRestorer::StateRestorer(const config::Config& config, state::StateStore* store, const seal::RecordSealer* sealer,
                             prometheus::Registry& registry)
    : config_(config),
      store_(store),
      sealer_(sealer),
      restored_(RestoreCounter(registry, "restored")),
      up_to_date_(RestoreCounter(registry, "up_to_date")),
      records_(prometheus::BuildCounter()
                   .Name("vanon_state_restored_records_total")
                   .Help("State changelog records read while restoring partitions")
                   .Register(registry)
                   .Add({})),
      seconds_(prometheus::BuildCounter()
                   .Name("vanon_state_restore_seconds_total")
                   .Help("Time spent reading the state changelog on partition assignment")
                   .Register(registry)
                   .Add({})),
      last_seconds_(prometheus::BuildGauge()
                        .Name("vanon_state_last_restore_seconds")
                        .Help("Duration of the last partition restore from the state changelog")
                        .Register(registry)
                        .Add({})),
      lag_(prometheus::BuildGauge()
               .Name("vanon_state_restore_lag_records")
               .Help("Changelog offsets still to read by the restore in progress (0 when none runs)")
               .Register(registry)
               .Add({})) {}

std::vector<int32_t> StateRestorer::Restoring() const {
  std::lock_guard<std::mutex> l(mu_);
  return {restoring_.begin(), restoring_.end()};
}

bool StateRestorer::Restore(int32_t partition, const std::function<int64_t(int32_t)>& committed_offset) {
  const auto t0 = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> l(mu_);
    restoring_.insert(partition);
  }
  struct Done {
    StateRestorer* self;
    int32_t p;
    ~Done() {
      std::lock_guard<std::mutex> l(self->mu_);
      self->restoring_.erase(p);
    }
  } done{this, partition};

  const int64_t committed = committed_offset(partition);
  const std::optional<state::ReleaseLogEntry> local = LocalNewestCommitted(*store_, partition);
  // First only what is ahead of the offset local state already holds: if
  // no release was committed there since, or only the ones this instance
  // committed itself, local state is the changelog's head.
  const int64_t from = LocalChangelogOffset(*store_, partition);
  ChangelogRead read;
  bool replace = false;
  if (from > 0) {
    read = ReadChangelog(partition, from, &lag_);
    const std::optional<state::ReleaseLogEntry> ahead = NewestCommitted(partition, read.releases);
    replace = ahead && !SameRelease(local, ahead);
  }
  // An empty (or pre-changelog) store, or another owner released the
  // partition since: the whole changelog, to replace the partition with.
  if (from == 0 || replace) {
    const uint64_t ahead_records = read.records;
    read = ReadChangelog(partition, 0, &lag_);
    read.records += ahead_records;
    replace = !SameRelease(local, NewestCommitted(partition, read.releases));
  }
  records_.Increment(static_cast<double>(read.records));
  if (replace) ApplyRestore(partition, &read, committed);
  SaveLocalChangelogOffset(store_, partition, std::max(from, read.next_offset));

  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  seconds_.Increment(seconds);
  last_seconds_.Set(seconds);
  (replace ? restored_ : up_to_date_).Increment();
  spdlog::info("partition {}: {} (changelog read from offset {}: {} records, {} keys, {:.3f} s)", partition,
               replace ? "state restored from the changelog" : "local state is up to date with the changelog",
               replace || from == 0 ? 0 : from, read.records, read.latest.size(), seconds);
  return replace;
}

void StateRestorer::ApplyRestore(int32_t partition, ChangelogRead* read, int64_t committed) {
  std::vector<state::StateChange> records;
  records.reserve(read->latest.size());
  for (auto& [k, c] : read->latest) records.push_back(std::move(c));
  store_->ReplacePartition(partition, records);
  // Each release commits its progress record's next offset to the group:
  // they differ only if the changelog was lost or replaced (or the broker
  // does not keep transactional offset commits, as librdkafka's mock).
  if (const int64_t next = store_->LoadProgress(partition).next_offset; next != committed) {
    spdlog::warn("partition {}: the changelog resumes at offset {} but the group committed {}", partition, next,
                 committed);
  }
  // The input is read again from the changelogged offset; the clock is
  // rewound when the partition is loaded (StoredClockForReplay), as after a
  // restart on local state.
}

}  // namespace vanon::service
