// A churning fleet through the pure release library for
// eight releases, rebuilt from the output records and the ground truth
// alone; the independent checker must find nothing, and must find the
// tampering done to the records afterwards.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include "fleet_truth.h"
#include "in_process_release.h"
#include "output_records.h"
#include "record_index.h"
#include "release_reconstructor.h"
#include "vanon/engine/release.h"
#include "vanon/fleet/fleet_distribution.h"
#include "vanon/fleet/fleet_generator.h"
#include "vanon/release/schema_from_config.h"
#include "vanon/vehicle/vin_decoder.h"

namespace vanon::e2e {
namespace {

constexpr int32_t kPartitions = 2;
constexpr int64_t kEpochs = 8;
constexpr double kEventsPerSecond = 150;

// The default fleet with 5% valid VINs the decoding table does not know,
// so that vehicles with root QIs occur in every release.
std::string DistributionWithUnknowns() {
  std::string yaml(fleet::FleetDistribution::DefaultYaml());
  const std::string from = "fraction: 0.005";
  const size_t at = yaml.find(from);
  if (at == std::string::npos) throw std::runtime_error("default distribution changed");
  yaml.replace(at, from.size(), "fraction: 0.05");
  const auto path =
      std::filesystem::temp_directory_path() / ("vanon_e2e_fleet_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(path) << yaml;
  return path.string();
}

struct Outcome {
  config::Config config;
  engine::Schema schema;
  std::vector<TruthMessage> truth;
  std::vector<std::string> events;
  std::vector<std::string> releases;
  uint64_t produced = 0;
  uint64_t rejected = 0;
  uint64_t expected_rejected = 0;
  uint64_t late = 0;
  uint64_t misjudged = 0;  // parser verdict differs from the generator's
};

Outcome RunFleet(const std::vector<std::string>& extra_overrides = {}) {
  Outcome o;
  // Overrides cannot append to a list: the seq rule takes the place of
  // demo.yaml's {path: artist, transform: drop}, which the default (drop)
  // already does.
  std::vector<std::string> overrides{"state.dir=/tmp/vanon-e2e-unused",
                                     "payload.fields.3={path: seq, transform: keep}"};
  overrides.insert(overrides.end(), extra_overrides.begin(), extra_overrides.end());
  o.config = config::LoadConfig(std::string(VANON_SOURCE_DIR) + "/config/demo.yaml", overrides);
  o.schema = release::SchemaFromConfig(o.config.quasi_identifiers, o.config.sensitive);
  const int64_t len = o.config.privacy.epoch.length_seconds * 1000;
  fleet::FleetOptions f;
  f.vehicles = 150;
  f.seed = 11;
  f.invalid_fraction = 0.01;
  f.max_message_bytes = static_cast<size_t>(o.config.input.max_message_bytes);
  f.events_per_second = kEventsPerSecond;
  f.churn = 0.2;
  f.churn_epoch_ms = len;
  f.start_ms = 1763805600000;  // an epoch boundary
  f.distribution = DistributionWithUnknowns();
  fleet::VinDecoder table = fleet::VinDecoder::Load(o.config.vehicle.vin_table);
  fleet::FleetGenerator gen(f, table);
  std::filesystem::remove(f.distribution);
  InProcessRelease service(o.config, "e2e-hmac-key-0123456789abcdefghij", kPartitions);

  const auto total = static_cast<uint64_t>(kEpochs * len / 1000 * kEventsPerSecond);
  int64_t open = FloorDiv(f.start_ms, len);
  uint64_t seq = 0;
  for (uint64_t i = 0; i < total; ++i) {
    const fleet::FleetMessage& m = gen.Next();
    const int64_t epoch = FloorDiv(m.ts_ms, len);
    if (epoch > open) {
      service.ReleaseThrough(epoch - 1);
      open = epoch;
    }
    std::string value = m.value;
    const int32_t p = PartitionOfVin(m.key, kPartitions);
    if (!m.expected_reject && !InsertSeq(&value, ++seq)) throw std::runtime_error("event without payload");
    ++o.produced;
    const Ingested r = service.Ingest(p, m.key, value, m.ts_ms + 1000);
    o.expected_rejected += m.expected_reject.has_value();
    o.rejected += r == Ingested::kRejected;
    o.late += r == Ingested::kLate;
    o.misjudged += (r == Ingested::kRejected) != m.expected_reject.has_value();
    if (r != Ingested::kRejected) o.truth.push_back(TruthOf(p, m, value, o.config, gen.Vehicles()[m.vehicle_index]));
  }
  service.ReleaseThrough(open);
  o.events = service.event_records();
  o.releases = service.release_records();
  return o;
}

const Outcome& Fleet() {
  static const Outcome outcome = RunFleet();  // one fleet run per process
  return outcome;
}

// The same fleet with shared signatures (docs/utility.md section 3b).
const Outcome& SharedFleet() {
  static const Outcome outcome = RunFleet({"privacy.shared_signatures=4", "privacy.shared_signature_size=6"});
  return outcome;
}

// Distinct published signatures (a group record lists every value of its
// group, counterfeits included) and the number of group records.
std::pair<size_t, size_t> SignatureSpread(const std::vector<std::string>& releases) {
  std::set<std::vector<std::string>> signatures;
  size_t groups = 0;
  for (const std::string& json : releases) {
    std::string error;
    std::optional<ReleaseRecord> r = ParseReleaseRecord(json, &error);
    if (!r || r->is_summary) continue;
    std::vector<std::string> values = r->group.sensitive;
    std::sort(values.begin(), values.end());
    signatures.insert(values);
    ++groups;
  }
  return {signatures.size(), groups};
}

E2eReport Reconstruct(const Outcome& o, const std::vector<std::string>& events,
                      const std::vector<std::string>& releases) {
  ReleaseReconstructor r(o.config, o.schema, kPartitions);
  for (const TruthMessage& t : o.truth) r.AddTruth(t);
  for (const std::string& e : events) r.AddEventRecord(e);
  for (const std::string& g : releases) r.AddReleaseRecord(g);
  return r.Check();
}

std::string Show(const std::vector<std::string>& v) {
  std::string out;
  for (size_t i = 0; i < v.size() && i < 20; ++i) out += v[i] + "\n";
  return out;
}

bool Mentions(const std::vector<std::string>& v, std::string_view what) {
  for (const std::string& s : v) {
    if (s.find(what) != std::string::npos) return true;
  }
  return false;
}

TEST(InProcessE2e, CheckerFindsNoViolationOverEightReleasesWithChurn) {
  const Outcome& o = Fleet();
  ASSERT_EQ(o.misjudged, 0u);
  ASSERT_EQ(o.late, 0u);
  ASSERT_GT(o.rejected, 0u);  // some malformed input, all rejected
  EXPECT_EQ(o.produced, o.truth.size() + o.rejected);

  const E2eReport report = Reconstruct(o, o.events, o.releases);
  EXPECT_TRUE(report.violations.empty()) << report.violations.size() << " violations:\n" << Show(report.violations);

  ASSERT_EQ(report.partitions.size(), static_cast<size_t>(kPartitions));
  uint64_t published = 0, counterfeits = 0, ineligible = 0, delayed = 0, events = 0, from_waiting = 0, unknown = 0;
  for (const auto& [p, a] : report.partitions) {
    EXPECT_EQ(a.releases, static_cast<uint64_t>(kEpochs)) << "partition " << p;
    // The accounting identity, exactly: every valid event is published,
    // suppressed, still waiting or late; nothing else.
    EXPECT_EQ(a.published_events + a.suppressed_events + a.waiting_events + a.unreleased_events + a.late_events,
              a.truth_events)
        << "partition " << p;
    EXPECT_EQ(a.summary_events, a.published_events);
    EXPECT_EQ(a.unreleased_events, 0u);
    published += a.published_tuples;
    unknown += a.published_unknown_qi;
    counterfeits += a.counterfeits;
    ineligible += a.suppressed_tuples[static_cast<size_t>(engine::SuppressReason::kIneligible)];
    delayed += a.suppressed_tuples[static_cast<size_t>(engine::SuppressReason::kDelay)];
    events += a.published_events;
    from_waiting += a.published_from_waiting;
  }
  // The run must exercise what the check is about, or passing means little.
  EXPECT_GT(published, 200u);
  EXPECT_GT(events, o.truth.size() / 2);
  // Unknown VINs are published under the root QIs, not suppressed
  // (privacy-model.md section 1); the checker verified their labels.
  EXPECT_GT(unknown, 0u);
  EXPECT_EQ(o.events.size(), events);
  std::cout << "tuples published " << published << " (" << from_waiting << " after waiting), counterfeits "
            << counterfeits << ", suppressed ineligible " << ineligible << ", delay " << delayed
            << ", published with unknown QIs " << unknown << ", events published " << events << " of " << o.truth.size()
            << "\n";
}

TEST(InProcessE2e, CheckerFindsNoViolationWithSharedSignatures) {
  const Outcome& o = SharedFleet();
  ASSERT_EQ(o.config.privacy.shared_signatures, 4);
  ASSERT_EQ(o.misjudged, 0u);
  const E2eReport report = Reconstruct(o, o.events, o.releases);
  EXPECT_TRUE(report.violations.empty()) << report.violations.size() << " violations:\n" << Show(report.violations);
  uint64_t published = 0;
  for (const auto& [p, a] : report.partitions) {
    EXPECT_EQ(a.releases, static_cast<uint64_t>(kEpochs)) << "partition " << p;
    EXPECT_EQ(a.published_events + a.suppressed_events + a.waiting_events + a.unreleased_events + a.late_events,
              a.truth_events)
        << "partition " << p;
    published += a.published_tuples;
  }
  EXPECT_GT(published, 200u);
  // The option took effect: groups repeat few signatures of 6 values where
  // the default run has signatures of m = 5 values.
  const auto [shared, shared_groups] = SignatureSpread(o.releases);
  const auto [plain, plain_groups] = SignatureSpread(Fleet().releases);
  std::cout << "distinct signatures: shared " << shared << " over " << shared_groups << " groups, default " << plain
            << " over " << plain_groups << " groups\n";
  EXPECT_LT(static_cast<double>(shared) / static_cast<double>(shared_groups),
            static_cast<double>(plain) / static_cast<double>(plain_groups));
}

TEST(InProcessE2e, FleetChurnsBetweenReleases) {
  const Outcome& o = Fleet();
  const int64_t len = o.config.privacy.epoch.length_seconds * 1000;
  std::map<int64_t, std::set<std::string>> active;
  for (const TruthMessage& t : o.truth) active[FloorDiv(t.ts_ms, len)].insert(t.vin);
  ASSERT_EQ(active.size(), static_cast<size_t>(kEpochs));
  // Vehicles leave at every boundary and come back one epoch later, so
  // nobody joins at the first boundary.
  size_t joined = 0;
  for (auto it = std::next(active.begin()); it != active.end(); ++it) {
    const auto& before = std::prev(it)->second;
    size_t left = 0;
    for (const std::string& v : before) left += !it->second.count(v);
    for (const std::string& v : it->second) joined += !before.count(v);
    EXPECT_GT(left, 0u) << "epoch " << it->first;
  }
  EXPECT_GT(joined, 0u);
}

// Tampering: each must be reported.

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string GroupJson(const GroupRecord& g) {
  std::string qi, values;
  for (const auto& [name, label] : g.qi) qi += (qi.empty() ? "" : ",") + Quote(name) + ":" + Quote(label);
  for (const std::string& v : g.sensitive) values += (values.empty() ? "" : ",") + Quote(v);
  return "{\"type\":\"group\",\"version\":2,\"release\":" + std::to_string(g.release) +
         ",\"partition\":" + std::to_string(g.partition) + ",\"group\":" + Quote(g.group) + ",\"qi\":{" + qi +
         "},\"size\":" + std::to_string(g.size) + ",\"sensitive\":[" + values +
         "],\"counterfeits\":" + std::to_string(g.counterfeits) + "}";
}

// Group ids that have events, by release.
std::set<std::pair<int64_t, std::string>> GroupsWithEvents(const std::vector<std::string>& events) {
  std::set<std::pair<int64_t, std::string>> real;
  std::string error;
  for (const std::string& e : events) {
    auto r = ParseEventRecord(e, &error);
    if (r) real.emplace(r->release, r->group);
  }
  return real;
}

// Index of the first group record whose group has events.
struct Victim {
  size_t record;
  GroupRecord group;
};
std::optional<Victim> FindGroup(const Outcome& o) {
  const auto real = GroupsWithEvents(o.events);
  std::string error;
  for (size_t i = 0; i < o.releases.size(); ++i) {
    auto r = ParseReleaseRecord(o.releases[i], &error);
    if (!r || r->is_summary) continue;
    if (real.count({r->group.release, r->group.group})) return Victim{i, r->group};
  }
  return std::nullopt;
}

TEST(InProcessE2e, ReportsADroppedGroupRecord) {
  const Outcome& o = Fleet();
  auto v = FindGroup(o);
  ASSERT_TRUE(v.has_value());
  std::vector<std::string> releases = o.releases;
  releases.erase(releases.begin() + static_cast<std::ptrdiff_t>(v->record));
  const E2eReport report = Reconstruct(o, o.events, releases);
  EXPECT_TRUE(Mentions(report.violations, "no group record lists")) << Show(report.violations);
  EXPECT_TRUE(Mentions(report.violations, "summary says")) << Show(report.violations);
}

TEST(InProcessE2e, ReportsAlteredSensitiveValues) {
  const Outcome& o = Fleet();
  auto v = FindGroup(o);
  ASSERT_TRUE(v.has_value());
  // The rebuilt record without tampering must pass, so what is reported
  // below is the change and not the re-serialization.
  std::vector<std::string> releases = o.releases;
  releases[v->record] = GroupJson(v->group);
  EXPECT_TRUE(Reconstruct(o, o.events, releases).violations.empty());
  for (size_t i = 0; i < v->group.sensitive.size(); ++i) v->group.sensitive[i] = "tampered-" + std::to_string(i);
  releases[v->record] = GroupJson(v->group);
  const E2eReport report = Reconstruct(o, o.events, releases);
  EXPECT_TRUE(Mentions(report.violations, "is not among the group's values")) << Show(report.violations);
}

TEST(InProcessE2e, ReportsAVersion1RecordThatLinksTokensToValues) {
  const Outcome& o = Fleet();
  auto v = FindGroup(o);
  ASSERT_TRUE(v.has_value());
  std::vector<std::string> releases = o.releases;
  std::string rec = GroupJson(v->group);
  rec.replace(rec.find("\"version\":2,"), 12, "");
  rec.insert(rec.size() - 1, ",\"tuples\":[]");
  releases[v->record] = rec;
  const E2eReport report = Reconstruct(o, o.events, releases);
  EXPECT_TRUE(Mentions(report.violations, "version-1 record")) << Show(report.violations);
}

TEST(InProcessE2e, ReportsADuplicatedEvent) {
  const Outcome& o = Fleet();
  ASSERT_FALSE(o.events.empty());
  std::vector<std::string> events = o.events;
  events.push_back(events[events.size() / 2]);
  const E2eReport report = Reconstruct(o, events, o.releases);
  EXPECT_TRUE(Mentions(report.violations, "published more than once")) << Show(report.violations);
  EXPECT_TRUE(Mentions(report.violations, "accounting")) << Show(report.violations);
}

TEST(InProcessE2e, ReportsASummaryThatMiscountsSuppressions) {
  const Outcome& o = Fleet();
  std::vector<std::string> releases = o.releases;
  size_t changed = 0;
  for (std::string& r : releases) {
    const size_t at = r.find("\"delay\":");
    if (r.find("\"type\":\"summary\"") == std::string::npos || at == std::string::npos) continue;
    r.insert(at + 8, "1");  // N -> 1N: a different count
    ++changed;
    break;
  }
  ASSERT_EQ(changed, 1u);
  const E2eReport report = Reconstruct(o, o.events, releases);
  EXPECT_TRUE(Mentions(report.violations, "metrics miscount suppression reason 1")) << Show(report.violations);
}

TEST(InProcessE2e, ReportsAnEventDroppedFromItsTuple) {
  const Outcome& o = Fleet();
  std::vector<std::string> events = o.events;
  events.erase(events.begin());
  const E2eReport report = Reconstruct(o, events, o.releases);
  EXPECT_TRUE(Mentions(report.violations, "summary says")) << Show(report.violations);
}

}  // namespace
}  // namespace vanon::e2e
