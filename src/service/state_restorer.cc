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
#include "vanon/release/epoch_clock.h"
#include "vanon/service/ingest_pipeline.h"  // kClockMeta
#include "vanon/state/state_store.h"

namespace vanon {

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
std::optional<ReleaseLogEntry> NewestCommitted(int32_t partition, const std::map<std::string, std::string>& releases) {
  for (auto it = releases.rbegin(); it != releases.rend(); ++it) {
    std::optional<ReleaseLogEntry> e = ReleaseLogEntry::Decode(it->second);
    if (!e) throw std::runtime_error("changelog: corrupt release-log entry of partition " + std::to_string(partition));
    if (e->status == ReleaseStatus::kCommitted) return e;
  }
  return std::nullopt;
}

bool SameRelease(const std::optional<ReleaseLogEntry>& a, const std::optional<ReleaseLogEntry>& b) {
  if (!a || !b) return !a && !b;
  return a->seed == b->seed && a->summary == b->summary;
}

}  // namespace

StateRestorer::StateRestorer(const Config& config, StateStore* store, prometheus::Registry& registry)
    : config_(config),
      store_(store),
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

  // Compaction semantics, applied here: the last record of a key wins, a
  // tombstone removes it.
  std::map<std::string, StateChange> latest;
  std::map<std::string, std::string> releases;  // store key -> value
  uint64_t n = 0;
  ReadCommitted(config_.kafka.bootstrap, config_.kafka.properties, config_.kafka.consumer_properties,
                config_.state.changelog.topic, partition, 0, [&](const CommittedRecord& r) {
                  ++n;
                  int32_t p = -1;
                  StateChange c;
                  if (!DecodeChangelogKey(r.key, &p, &c) || p != partition) {
                    throw std::runtime_error("changelog: a record of partition " + std::to_string(partition) +
                                             " has a malformed key");
                  }
                  std::string k = r.key.data() ? std::string(r.key) : std::string();
                  if (r.value.empty()) {
                    latest.erase(k);
                    if (c.family == StateFamily::kReleases) releases.erase(c.key);
                    return true;
                  }
                  c.value = std::string(r.value);
                  if (c.family == StateFamily::kReleases) releases[c.key] = *c.value;
                  latest[k] = std::move(c);
                  return true;
                },
                kRestoreTimeoutMs);
  records_.Increment(static_cast<double>(n));

  std::optional<ReleaseLogEntry> local;
  store_->ScanReleasesNewestFirst(partition, [&](int64_t, const ReleaseLogEntry& e) {
    if (e.status != ReleaseStatus::kCommitted) return true;
    local = e;
    return false;
  });
  const bool replace = !SameRelease(local, NewestCommitted(partition, releases));

  if (replace) {
    std::vector<StateChange> records;
    records.reserve(latest.size());
    for (auto& [k, c] : latest) records.push_back(std::move(c));
    store_->ReplacePartition(partition, records);
    // Each release commits its progress record's next offset to the group:
    // they differ only if the changelog was lost or replaced (or the broker
    // does not keep transactional offset commits, as librdkafka's mock).
    if (const int64_t next = store_->LoadProgress(partition).next_offset; next != committed) {
      spdlog::warn("partition {}: the changelog resumes at offset {} but the group committed {}", partition, next,
                   committed);
    }
    // The input is read again from the changelogged offset: the events of
    // open epochs must find their epochs open (see RewindToFirstOpen).
    if (std::optional<std::string> state = store_->GetMeta(partition, kClockMeta)) {
      EpochClock clock(config_.privacy.epoch);
      if (!clock.DecodeState(*state)) {
        throw std::runtime_error("changelog: unreadable epoch clock of partition " + std::to_string(partition));
      }
      clock.RewindToFirstOpen();
      ReleaseWrite w(*store_);
      w.PutMeta(partition, kClockMeta, clock.EncodeState());
      store_->Commit(w);
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  seconds_.Increment(seconds);
  last_seconds_.Set(seconds);
  (replace ? restored_ : up_to_date_).Increment();
  spdlog::info("partition {}: {} ({} changelog records, {} keys, {:.3f} s)", partition,
               replace ? "state restored from the changelog" : "local state is up to date with the changelog", n,
               latest.size(), seconds);
  return replace;
}

}  // namespace vanon
