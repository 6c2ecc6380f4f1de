#include "service/restore/state_restorer.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "service/collector/changelog_writer.h"
#include "service/support/metric_builders.h"
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
  return NewCounterFamily(r, "vanon_state_restores_total",
                          "Partition assignments checked against the state changelog, by outcome")
      .Add({{"outcome", outcome}});
}

// Two newest releases (nullptr: none) are the same release. Pointers, not
// optional<int64_t> copies: GCC 12 at -O1 with -fsanitize=thread took those
// for uninitialized.
template <typename Newest>
bool Same(const Newest* a, const Newest* b) {
  if (a == nullptr || b == nullptr) return a == nullptr && b == nullptr;
  return a->release == b->release && a->entry.seed == b->entry.seed && a->entry.summary == b->entry.summary;
}

// The value of kChangelogOffsetMeta (record_names.h), local only (never
// changelogged): the changelog offset up to which local state is known to
// hold everything the changelog does, and the newest committed release the
// changelog held then ("-": none). Set after every check, restore or seed;
// dropped with the partition's state. Builds before the release was
// recorded wrote the offset alone: then the release is unknown and the next
// check reads the whole changelog once.
struct OffsetMark {
  int64_t offset = 0;
  bool release_known = false;
  std::optional<int64_t> release;
};

OffsetMark LocalMark(const state::StateStore& store, int32_t partition) {
  OffsetMark m;
  std::optional<std::string> v = store.GetMeta(partition, kChangelogOffsetMeta);
  if (!v) return m;
  std::istringstream in(*v);
  std::string release;
  if (!(in >> m.offset)) {
    throw std::runtime_error("state: corrupt changelog offset of partition " + std::to_string(partition));
  }
  if (in >> release) {
    m.release_known = true;
    if (release != "-") {
      try {
        m.release = std::stoll(release);
      } catch (const std::exception&) {
        throw std::runtime_error("state: corrupt changelog offset of partition " + std::to_string(partition));
      }
    }
  }
  return m;
}

void SaveLocalMark(state::StateStore* store, int32_t partition, int64_t offset, std::optional<int64_t> release) {
  state::ReleaseWrite w(*store);
  w.PutMeta(partition, kChangelogOffsetMeta,
            std::to_string(offset) + " " + (release ? std::to_string(*release) : std::string("-")));
  store->Commit(w);
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
  const std::string seeding_key =
      ChangelogKey(partition, {state::StateFamily::kMeta, state::MetaRecordKey(partition, kSeedingMeta), {}});
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
  const std::string prepared_key = ChangelogKey(
      partition, {state::StateFamily::kMeta, state::MetaRecordKey(partition, ChangelogWriter::kPreparedMeta), {}});
  if (auto prepared = read.latest.find(prepared_key); prepared != read.latest.end()) {
    std::optional<ChangelogWriter::Prepared> p = ChangelogWriter::DecodePrepared(partition, *prepared->second.value);
    if (!p) throw std::runtime_error("changelog: corrupt prepare record of partition " + std::to_string(partition));
    read.prepared = Newest{p->release, std::move(p->entry)};
  }
  if (auto mark = read.latest.find(seeding_key); mark != read.latest.end()) {
    try {
      read.seeding = std::stoll(*mark->second.value);
    } catch (const std::exception&) {
      throw std::runtime_error("changelog: corrupt seeding mark of partition " + std::to_string(partition));
    }
  }
  return read;
}

namespace {

// The newest committed release-log entry among `releases` (release keys sort
// by release id), or nullopt.
template <typename Newest>
std::optional<Newest> NewestCommitted(int32_t partition, const std::map<std::string, std::string>& releases) {
  for (auto it = releases.rbegin(); it != releases.rend(); ++it) {
    std::optional<state::ReleaseLogEntry> e = state::ReleaseLogEntry::Decode(it->second);
    std::optional<int64_t> release = state::ReleaseOfKey(it->first);
    if (!e || !release) {
      throw std::runtime_error("changelog: corrupt release-log entry of partition " + std::to_string(partition));
    }
    if (e->status == state::ReleaseStatus::kCommitted) return Newest{*release, std::move(*e)};
  }
  return std::nullopt;
}

template <typename Newest>
std::optional<Newest> LocalNewestCommitted(const state::StateStore& store, int32_t partition) {
  std::optional<Newest> local;
  store.ScanReleasesNewestFirst(partition, [&](int64_t release, const state::ReleaseLogEntry& e) {
    if (e.status != state::ReleaseStatus::kCommitted) return true;
    local = Newest{release, e};
    return false;
  });
  return local;
}

// Local state went on from `release` of the changelog: its log holds that
// release committed with the same summary, or its log no longer reaches
// back that far (it keeps the last 1000 releases).
bool LocalContinues(const state::StateStore& store, int32_t partition, int64_t release,
                    const state::ReleaseLogEntry& changelog_entry) {
  if (std::optional<state::ReleaseLogEntry> e = store.GetRelease(partition, release)) {
    return e->status == state::ReleaseStatus::kCommitted && e->summary == changelog_entry.summary;
  }
  int64_t oldest = INT64_MAX;
  store.ScanReleasesNewestFirst(partition, [&](int64_t r, const state::ReleaseLogEntry&) {
    oldest = r;
    return true;
  });
  return oldest > release;
}

}  // namespace

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
                             ChangelogWriter* writer, prometheus::Registry& registry)
    : config_(config),
      store_(store),
      sealer_(sealer),
      writer_(writer),
      restored_(RestoreCounter(registry, "restored")),
      up_to_date_(RestoreCounter(registry, "up_to_date")),
      seeded_(RestoreCounter(registry, "seeded")),
      records_(NewCounter(registry, "vanon_state_restored_records_total",
                          "State changelog records read while restoring partitions")),
      seeded_records_(NewCounter(registry, "vanon_state_seeded_records_total",
                                 "State changelog records written from local state that the changelog lacked")),
      seconds_(NewCounter(registry, "vanon_state_restore_seconds_total",
                          "Time spent reading the state changelog on partition assignment")),
      last_seconds_(NewGauge(registry, "vanon_state_last_restore_seconds",
                             "Duration of the last partition restore from the state changelog")),
      lag_(NewGauge(registry, "vanon_state_restore_lag_records",
                    "Changelog offsets still to read by the restore in progress (0 when none runs)")) {}

std::vector<int32_t> StateRestorer::Restoring() const {
  std::lock_guard<std::mutex> l(mu_);
  return {restoring_.begin(), restoring_.end()};
}

bool StateRestorer::TailInSync(int32_t partition, const std::optional<Newest>& local, const ChangelogRead& tail) const {
  if (tail.seeding) return false;
  if (std::optional<Newest> ahead = NewestCommitted<Newest>(partition, tail.releases)) {
    // Released since the mark: in sync only if local state's newest release
    // is that one (this instance released it itself).
    return local && local->release == ahead->release && local->entry.seed == ahead->entry.seed &&
           local->entry.summary == ahead->entry.summary;
  }
  // Nothing released into the changelog since the mark: local state must
  // not have released anything since either (it did, with the changelog
  // off, if its newest release is not the one the mark recorded).
  const OffsetMark mark = LocalMark(*store_, partition);
  if (!mark.release_known) return false;
  if (!local) return !mark.release.has_value();
  return mark.release.has_value() && *mark.release == local->release;
}

StateRestorer::Action StateRestorer::Decide(int32_t partition, const std::optional<Newest>& local,
                                            const ChangelogRead& read, std::string* refusal) const {
  const std::optional<Newest> theirs = NewestCommitted<Newest>(partition, read.releases);
  const bool same = Same(local ? &*local : nullptr, theirs ? &*theirs : nullptr);
  // An unfinished seed is finished by an instance whose state is at least as
  // new as the seeding one's, and never restored.
  if (read.seeding) {
    if (local && local->release >= *read.seeding && (same || !theirs || local->release > theirs->release)) {
      return Action::kSeed;
    }
    *refusal = "partition " + std::to_string(partition) +
               ": the state changelog holds an unfinished copy of the state of an instance that turned the changelog "
               "on (its newest release " +
               std::to_string(*read.seeding) +
               "); start that instance with its state dir to finish it (docs/operations.md, \"Turning the state "
               "changelog on\")";
    return Action::kRefuse;
  }
  if (same) return Action::kKeep;
  if (local && (!theirs || (local->release > theirs->release &&
                            LocalContinues(*store_, partition, theirs->release, theirs->entry)))) {
    return Action::kSeed;
  }
  if (local && theirs && local->release >= theirs->release) {
    spdlog::error(
        "partition {}: local state (newest release {}) and the state changelog (newest release {}) diverged: "
        "another instance released the partition from other state; keeping the changelog's",
        partition, local->release, theirs->release);
  }
  return Action::kReplace;
}

// First only what is ahead of the offset local state already holds: if
// nothing was released since on either side, or only what this instance
// released itself into the changelog, local state is the changelog's head.
// Otherwise the whole changelog, and Decide.
StateRestorer::Action StateRestorer::Check(int32_t partition, const std::optional<Newest>& local, ChangelogRead* read,
                                           uint64_t* records, int64_t* from, std::string* refusal) {
  *from = LocalMark(*store_, partition).offset;
  if (*from > 0) {
    *read = ReadChangelog(partition, *from, &lag_);
    *records = read->records;
    if (TailInSync(partition, local, *read)) return Action::kKeep;
  }
  *read = ReadChangelog(partition, 0, &lag_);
  *records += read->records;
  return Decide(partition, local, *read, refusal);
}

// Neither the changelog nor local state knows the partition. New, or its
// state is on an instance that ran it without the changelog and has not
// seeded it yet: the releases topic tells (its records are keyed
// "<release>/<partition>"). Starting it over would give its vehicles second
// signatures.
void StateRestorer::RefuseIfReleasedElsewhere(int32_t partition) const {
  if (config_.state.changelog.allow_partitions_without_state || releases_partitions_ <= 0) return;
  const std::string suffix = "/" + std::to_string(partition);
  bool released = false;
  kafka::ReadCommitted(
      config_.kafka.bootstrap, config_.kafka.properties, config_.kafka.consumer_properties,
      config_.kafka.topics.releases, partition % releases_partitions_, 0,
      [&](const kafka::CommittedRecord& r) {
        released = r.key.size() > suffix.size() && r.key.ends_with(suffix);
        return !released;
      },
      kRestoreTimeoutMs);
  if (!released) return;
  throw std::runtime_error(
      "partition " + std::to_string(partition) + " has published releases (" + config_.kafka.topics.releases +
      "), but neither the state changelog nor this instance's state holds its state: the instance that released it "
      "without the changelog must start with it on first (it seeds the changelog at start-up); if that state is lost "
      "for good, set state.changelog.allow_partitions_without_state (its vehicles get new signatures; "
      "docs/operations.md, \"Turning the state changelog on\")");
}

void StateRestorer::SeedHeldPartitions(int32_t partitions) {
  for (int32_t p = 0; p < partitions; ++p) {
    const std::optional<Newest> local = LocalNewestCommitted<Newest>(*store_, p);
    if (!local) continue;
    ChangelogRead read;
    uint64_t records = 0;
    int64_t from = 0;
    std::string refusal;
    const Action action = Check(p, local, &read, &records, &from, &refusal);
    records_.Increment(static_cast<double>(records));
    if (action == Action::kSeed) {
      Seed(p, *local, read, /*fenced=*/false);
      seeded_.Increment();
    }
    // A partition whose changelog is ahead is restored by whoever gets it.
    if (action == Action::kSeed || action == Action::kKeep) {
      SaveLocalMark(store_, p, std::max(from, read.next_offset), local->release);
    }
  }
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
  const std::optional<Newest> local = LocalNewestCommitted<Newest>(*store_, partition);
  const std::optional<int64_t> local_release = local ? std::optional<int64_t>(local->release) : std::nullopt;
  ChangelogRead read;
  uint64_t records = 0;
  int64_t from = 0;
  std::string refusal;
  Action action = Check(partition, local, &read, &records, &from, &refusal);
  if (action == Action::kReplace) {
    if (auto dropped = DropUnpublishedCommit(partition, &read)) {
      std::string second_refusal;
      if (Decide(partition, local, read, &second_refusal) == Action::kKeep) {
        action = Action::kKeep;
        spdlog::warn(
            "partition {}: the state changelog holds release {} as committed, but its summary is not on {}: records "
            "of a transaction that never committed (the broker shows them); the release is resumed from local state",
            partition, dropped->release, config_.kafka.topics.releases);
      } else {
        read.releases.insert(std::move(dropped->entry));  // replaced as the changelog has it
      }
    }
  }
  if (action == Action::kRefuse) throw std::runtime_error(refusal);
  if (action == Action::kKeep && !local && read.latest.empty()) RefuseIfReleasedElsewhere(partition);
  records_.Increment(static_cast<double>(records));
  if (action == Action::kReplace) ApplyRestore(partition, &read, committed);
  if (action == Action::kSeed) Seed(partition, *local, read, /*fenced=*/true);
  if (action == Action::kKeep) AdoptPrepared(partition, local, read);
  std::optional<int64_t> now_release = local_release;
  if (action == Action::kReplace) {
    const std::optional<Newest> theirs = NewestCommitted<Newest>(partition, read.releases);
    now_release = theirs ? std::optional<int64_t>(theirs->release) : std::nullopt;
  }
  SaveLocalMark(store_, partition, std::max(from, read.next_offset), now_release);

  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  seconds_.Increment(seconds);
  last_seconds_.Set(seconds);
  (action == Action::kReplace ? restored_ : action == Action::kSeed ? seeded_ : up_to_date_).Increment();
  spdlog::info("partition {}: {} (changelog read from offset {}: {} records, {} keys, {:.3f} s)", partition,
               action == Action::kReplace ? "state restored from the changelog"
               : action == Action::kSeed  ? "changelog seeded from local state"
                                          : "local state is up to date with the changelog",
               action != Action::kKeep || from == 0 ? 0 : from, records, read.latest.size(), seconds);
  return action == Action::kReplace;
}

// Kafka's transactions make a release's changelog records and its summary
// visible together, and a restart that finds one of its own prepared
// releases committed in the changelog takes the changelog's state with that
// release applied. A broker that shows records of transactions that never
// committed (librdkafka's mock writes no transaction markers) can show the
// changelog records without the summary when the kill fell between their
// deliveries: the release would then count as published while nothing of it
// is, and never be republished. The resume path decides "committed" by the
// summary (ReleaseLogReader); so does this, for the release the changelog
// says committed that local state holds as prepared by this same prepare.
// On a real broker the summary is there whenever the changelog record is.
std::optional<StateRestorer::Dropped> StateRestorer::DropUnpublishedCommit(int32_t partition,
                                                                           ChangelogRead* read) const {
  const std::optional<Newest> theirs = NewestCommitted<Newest>(partition, read->releases);
  if (!theirs) return std::nullopt;
  const std::optional<state::ReleaseLogEntry> mine = store_->GetRelease(partition, theirs->release);
  if (!mine || mine->status != state::ReleaseStatus::kPrepared ||
      mine->readback_partition != theirs->entry.readback_partition ||
      mine->readback_offset != theirs->entry.readback_offset ||
      mine->prepared_wall_ms != theirs->entry.prepared_wall_ms) {
    return std::nullopt;
  }
  bool published = false;
  kafka::ReadCommitted(
      config_.kafka.bootstrap, config_.kafka.properties, config_.kafka.consumer_properties,
      config_.kafka.topics.releases, theirs->entry.readback_partition, theirs->entry.readback_offset,
      [&](const kafka::CommittedRecord& r) {
        published = r.value == theirs->entry.summary;
        return !published;
      },
      kRestoreTimeoutMs);
  if (published) return std::nullopt;
  return Dropped{theirs->release, read->releases.extract(state::ReleaseRecordKey(partition, theirs->release))};
}

namespace {
bool ChangelogOnly(int32_t partition, const state::StateChange& c) {
  return c.family == state::StateFamily::kMeta &&
         (c.key == state::MetaRecordKey(partition, ChangelogWriter::kPreparedMeta) ||
          c.key == state::MetaRecordKey(partition, StateRestorer::kSeedingMeta));
}
}  // namespace

void StateRestorer::ApplyRestore(int32_t partition, ChangelogRead* read, int64_t committed) {
  std::vector<state::StateChange> records;
  records.reserve(read->latest.size());
  for (auto& [k, c] : read->latest) {
    if (!ChangelogOnly(partition, c)) records.push_back(c);
  }
  // A release the previous owner prepared after its last committed one: its
  // log entry as that owner stored it, so that it is resumed with its seed.
  const std::optional<Newest> theirs = NewestCommitted<Newest>(partition, read->releases);
  if (read->prepared && (!theirs || read->prepared->release > theirs->release)) {
    records.push_back({state::StateFamily::kReleases, state::ReleaseRecordKey(partition, read->prepared->release),
                       read->prepared->entry.Encode()});
    spdlog::info("partition {}: release {} was prepared by the previous owner; it is resumed with its seed", partition,
                 read->prepared->release);
  }
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

// What local state holds and the changelog lacks (or holds otherwise), and
// tombstones for what the changelog holds beyond it: between a mark that
// says a seed is under way and its removal, the release log last. A seed
// that stops midway is finished by the next one, which writes only what is
// still missing.
void StateRestorer::AdoptPrepared(int32_t partition, const std::optional<Newest>& local, const ChangelogRead& read) {
  if (!read.prepared || (local && read.prepared->release <= local->release)) return;
  if (store_->GetRelease(partition, read.prepared->release) == read.prepared->entry) return;
  state::ReleaseWrite w(*store_);
  w.PutRelease(partition, read.prepared->release, read.prepared->entry);
  store_->Commit(w, state::Durability::kMachineCrash);
  spdlog::info("partition {}: release {} was prepared by another owner since; it is resumed with its seed", partition,
               read.prepared->release);
}

void StateRestorer::Seed(int32_t partition, const Newest& local, const ChangelogRead& read, bool fenced) {
  const std::string mark_key = state::MetaRecordKey(partition, kSeedingMeta);
  const std::string offset_key = state::MetaRecordKey(partition, kChangelogOffsetMeta);
  std::vector<state::StateChange> out, releases;
  out.push_back({state::StateFamily::kMeta, mark_key, std::to_string(local.release)});
  std::set<std::string> held;
  std::optional<Newest> prepared;  // local state's newest prepared release, if after its newest committed
  store_->VisitPartition(partition, [&](const state::StateChange& c) {
    if (c.family == state::StateFamily::kMeta && (c.key == offset_key || c.key == mark_key)) return true;
    if (c.family == state::StateFamily::kReleases) {
      // A prepared entry travels as the prepare record (kPreparedMeta), not
      // in the release log: a later commit of the release must not be
      // overwritten by it.
      std::optional<state::ReleaseLogEntry> e = state::ReleaseLogEntry::Decode(*c.value);
      std::optional<int64_t> release = state::ReleaseOfKey(c.key);
      if (!e || !release)
        throw std::runtime_error("state: corrupt release log of partition " + std::to_string(partition));
      if (e->status == state::ReleaseStatus::kPrepared) {
        if (*release > local.release && (!prepared || *release > prepared->release)) prepared = Newest{*release, *e};
        return true;
      }
    }
    const std::string k = ChangelogKey(partition, c);
    held.insert(k);
    auto it = read.latest.find(k);
    if (it == read.latest.end() || it->second.value != c.value) {
      (c.family == state::StateFamily::kReleases ? releases : out).push_back(c);
    }
    return true;
  });
  const std::string prepared_key = state::MetaRecordKey(partition, ChangelogWriter::kPreparedMeta);
  for (const auto& [k, c] : read.latest) {
    if (held.count(k) || (c.family == state::StateFamily::kMeta && (c.key == mark_key || c.key == prepared_key))) {
      continue;
    }
    (c.family == state::StateFamily::kReleases ? releases : out).push_back({c.family, c.key, std::nullopt});
  }
  if (prepared) {
    releases.push_back(
        {state::StateFamily::kMeta, prepared_key, ChangelogWriter::EncodePrepared(prepared->release, prepared->entry)});
  } else if (read.prepared) {
    releases.push_back({state::StateFamily::kMeta, prepared_key, std::nullopt});
  }
  const size_t changed = out.size() - 1 + releases.size();
  out.insert(out.end(), std::make_move_iterator(releases.begin()), std::make_move_iterator(releases.end()));
  out.push_back({state::StateFamily::kMeta, mark_key, std::nullopt});
  if (writer_ == nullptr) throw std::logic_error("StateRestorer: a seed needs a changelog writer");
  writer_->Seed(partition, out, fenced ? store_->LoadProgress(partition).next_offset : -1);
  seeded_records_.Increment(static_cast<double>(out.size()));
  spdlog::info(
      "partition {}: local state holds releases the state changelog lacks (newest {}): {} records written to the "
      "changelog",
      partition, local.release, changed);
}

}  // namespace vanon::service
