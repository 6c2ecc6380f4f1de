#include "vanon/release/release_writer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "release_pipeline.h"
#include "vanon/engine/checker.h"

namespace vanon::release {
namespace {

using release_test::Generate;
using release_test::Pipeline;
using release_test::SeedOf;

config::Config TestConfig() { return release_test::TestConfig(release_test::WriteEngineHierarchy()); }

std::string All(const ReleaseRecords& r) {
  std::string s;
  for (std::string_view e : r.events) s.append(e).append("\n");
  for (const auto& g : r.groups) s += g + "\n";
  return s + r.summary;
}

TEST(ReleaseWriterTest, SameInputAndSeedGiveIdenticalRecords) {
  const auto events = Generate(0, 60, 0, 1);
  Pipeline a(TestConfig()), b(TestConfig());
  const std::string ra = All(a.Run(0, events, SeedOf(7)).records);
  EXPECT_EQ(ra, All(b.Run(0, events, SeedOf(7)).records));
  Pipeline c(TestConfig());
  const std::string rc = All(c.Run(0, events, SeedOf(8)).records);
  EXPECT_NE(ra, rc);  // fresh tokens and group ids for another seed
  EXPECT_EQ(ra.size(), rc.size());
}

// Recovery's reading of the summary (IsSummaryOf) against the writer's
// output: the summary of this release and partition only.
TEST(ReleaseWriterTest, RecoveryRecognisesTheSummaryItWrote) {
  Pipeline p(TestConfig());
  const ReleaseRecords r = p.Run(7, Generate(0, 60, 7 * 60000, 1), SeedOf(3)).records;
  EXPECT_TRUE(IsSummaryOf(r.summary, 7, 0));
  EXPECT_FALSE(IsSummaryOf(r.summary, 8, 0));
  EXPECT_FALSE(IsSummaryOf(r.summary, 7, 1));
  ASSERT_FALSE(r.groups.empty());
  EXPECT_FALSE(IsSummaryOf(r.groups[0], 7, 0));
  EXPECT_FALSE(IsSummaryOf(r.summary.substr(0, r.summary.size() / 2), 7, 0));
  EXPECT_FALSE(IsSummaryOf("not json", 7, 0));
}

TEST(ReleaseWriterTest, NoVehicleOrTripKeyInAnyRecord) {
  auto events = Generate(0, 80, 0, 2);
  Pipeline p(TestConfig());
  const release_test::Step s = p.Run(0, events, SeedOf(1));
  ASSERT_GT(s.records.events.size(), 0u);
  const std::string all = All(s.records);
  for (const ingest::BufferedEvent& e : events) {
    for (const ingest::HmacToken* k : {&e.vehicle_key, &e.trip_key}) {
      const std::string hex = ingest::HmacTokenHex(*k);
      const std::string raw(k->begin(), k->end());
      EXPECT_EQ(all.find(hex.substr(0, 16)), std::string::npos);
      EXPECT_EQ(all.find(raw.substr(0, 8)), std::string::npos);
    }
  }
}

// Each event record carries its own event's published time, also where a
// tuple's events fall in different buckets (1 s buckets over a minute).
TEST(ReleaseWriterTest, EventRecordsCarryTheirEventsPublishedTimes) {
  config::Config config = TestConfig();
  config.payload.time_bucket_seconds = 1;
  const auto events = Generate(0, 80, 0, 4);
  Pipeline p(config);
  const release_test::Step s = p.Run(0, events, SeedOf(2));
  ASSERT_EQ(s.records.events.size(), events.size());  // nothing suppressed here
  std::multiset<int64_t> published, expected;
  for (std::string_view r : s.records.events) {
    const size_t at = r.find("\"ts\":");
    ASSERT_NE(at, std::string_view::npos) << r;
    published.insert(std::stoll(std::string(r.substr(at + 5, 20))));
  }
  for (const ingest::BufferedEvent& e : events) expected.insert(e.ts_ms / 1000 * 1000);
  EXPECT_EQ(published, expected);
}

// Event names are quoted once per name and release, up to a few dozen of
// them, and as they come beyond: every record carries its own event's name,
// escaped, whether the name was seen before, is new, or came after the
// writer stopped remembering names.
TEST(ReleaseWriterTest, EventRecordsCarryTheirOwnEventNamesEscaped) {
  auto events = Generate(0, 80, 0, 4);
  std::multiset<std::string> expected, written;
  for (size_t i = 0; i < events.size(); ++i) {
    events[i].event = "name-" + std::to_string(i % 45) + (i % 3 == 0 ? "\"quoted\\" : "");
    expected.insert("\"event\":" + std::string("\"name-") + std::to_string(i % 45) +
                    (i % 3 == 0 ? "\\\"quoted\\\\" : "") + "\",");
  }
  Pipeline p(TestConfig());
  const release_test::Step s = p.Run(0, events, SeedOf(2));
  ASSERT_EQ(s.records.events.size(), events.size());  // nothing suppressed here
  for (std::string_view r : s.records.events) {
    const size_t at = r.find("\"event\":");
    const size_t end = r.find("\",\"payload\":", at);
    ASSERT_NE(end, std::string_view::npos) << r;
    written.insert(std::string(r.substr(at, end + 2 - at)));
  }
  EXPECT_EQ(written, expected);
}

TEST(ReleaseWriterTest, CheckerPassesOverSeveralReleasesWithChurn) {
  Pipeline p(TestConfig());
  engine::ReleaseChecker checker(p.schema());
  uint64_t counterfeits = 0, published = 0, unknown_published = 0;
  for (uint64_t r = 0; r < 5; ++r) {
    // Release 0: vehicles 0..119. Later: a different fifth of them is away
    // (their groups need counterfeits) and 10 new vehicles join.
    auto events = Generate(0, 120 + 10 * static_cast<uint32_t>(r), static_cast<int64_t>(r) * 60000, 100 + r, 6,
                           [r](uint32_t v) { return r == 0 || v % 5 != r; });
    // One vehicle the decoding table does not know, one without a value.
    events.push_back(release_test::Event(9999, static_cast<int64_t>(r) * 60000, "*", "*", "artist-1"));
    events.push_back(release_test::Event(9998, static_cast<int64_t>(r) * 60000, "BEV", "4", std::nullopt));
    const release_test::Step s = p.Run(r, events, SeedOf(static_cast<uint8_t>(r)));
    const std::vector<std::string> violations = checker.Check(s.input, s.output);
    EXPECT_TRUE(violations.empty()) << "release " << r << ": " << violations.front();
    // The value-less vehicle is ineligible; the unknown VIN is not: it is
    // published under the root (or waits or conflicts like any other).
    EXPECT_GE(s.output.metrics.suppressed_by_reason[static_cast<size_t>(engine::SuppressReason::kIneligible)], 1u);
    for (const engine::Suppressed& x : s.output.suppressed) {
      if (x.reason != engine::SuppressReason::kIneligible) continue;
      EXPECT_NE(ResolveTuple(s.input, x.ref).qi[0], engine::kUnknownQiCode) << "release " << r;
    }

    // Every event of a published current tuple is published once.
    uint64_t expected_events = 0;
    for (const engine::Group& g : s.output.groups) {
      for (engine::TupleRef ref : g.members) {
        if (ref < s.input.tuples.size()) expected_events += ResolveTuple(s.input, ref).events;
        unknown_published += ResolveTuple(s.input, ref).qi[0] == engine::kUnknownQiCode;
      }
      counterfeits += g.counterfeits.size();
      published += g.members.size();
    }
    EXPECT_EQ(s.records.events.size(), expected_events);
    EXPECT_EQ(s.records.groups.size(), s.output.groups.size());
    EXPECT_NE(s.records.summary.find("\"events\":" + std::to_string(expected_events) + ","), std::string::npos);
  }
  EXPECT_GT(published, 200u);
  EXPECT_GT(counterfeits, 0u);       // churn must have exercised counterfeits
  EXPECT_GT(unknown_published, 0u);  // the unknown VIN reached a release under the root
}

// The quoted strings of the JSON array `key` in `rec` (values without
// escapes, as the test's are).
std::vector<std::string> StringArray(const std::string& rec, const std::string& key) {
  std::vector<std::string> out;
  const size_t at = rec.find("\"" + key + "\":[");
  if (at == std::string::npos) return out;
  const size_t end = rec.find(']', at);
  for (size_t q = rec.find('"', at + key.size() + 4); q < end; q = rec.find('"', q + 1)) {
    const size_t close = rec.find('"', q + 1);
    out.push_back(rec.substr(q + 1, close - q - 1));
    q = close;
  }
  return out;
}

// A group record lists its values (counterfeits' included) and no
// token, so that knowing which tokens have events (the real tuples) does
// not tell which values are counterfeit. Tokens link events of one tuple.
TEST(ReleaseWriterTest, GroupRecordsListValuesWithoutTokens) {
  Pipeline p(TestConfig());
  // Release 0 fixes signatures; in release 1 only some of those vehicles
  // return, so their groups need counterfeits.
  p.Run(0, Generate(0, 90, 0, 5), SeedOf(1));
  auto step = p.Run(1, Generate(0, 40, 60000, 6), SeedOf(2));
  std::multiset<std::vector<std::string>> want, got;
  std::vector<std::vector<std::string>> engine_order;  // members' values, then counterfeits'
  size_t groups_with_counterfeits = 0, reordered = 0;
  for (const engine::Group& g : step.output.groups) {
    std::vector<std::string> values;
    for (engine::TupleRef ref : g.members)
      values.push_back(p.dictionary().Value(ResolveTuple(step.input, ref).sensitive));
    for (engine::SensitiveId v : g.counterfeits) values.push_back(p.dictionary().Value(v));
    if (!g.counterfeits.empty()) engine_order.push_back(values);
    std::sort(values.begin(), values.end());
    want.insert(values);
    groups_with_counterfeits += g.counterfeits.empty() ? 0 : 1;
  }
  for (const std::string& rec : step.records.groups) {
    EXPECT_EQ(rec.find("\"tuple"), std::string::npos) << rec;
    EXPECT_NE(rec.find("\"version\":2"), std::string::npos) << rec;
    std::vector<std::string> values = StringArray(rec, "sensitive");
    ASSERT_FALSE(values.empty()) << rec;
    EXPECT_NE(rec.find("\"size\":" + std::to_string(values.size()) + ","), std::string::npos) << rec;
    // In no group with counterfeits may the record keep the engine's order,
    // which puts the counterfeits' values last; shuffled, most differ.
    bool same_values = false, same_order = false;
    std::vector<std::string> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    for (const auto& order : engine_order) {
      std::vector<std::string> o = order;
      std::sort(o.begin(), o.end());
      if (o != sorted) continue;
      same_values = true;
      same_order = same_order || order == values;
    }
    reordered += same_values && !same_order;
    got.insert(sorted);
  }
  EXPECT_EQ(got, want);
  ASSERT_GT(groups_with_counterfeits, 1u);
  EXPECT_GT(reordered, 0u);
  // Tokens: fresh per tuple, one per real tuple, never shared by two groups.
  std::map<std::string, std::string> group_of_token;
  for (std::string_view record : step.records.events) {
    const std::string e(record);
    const std::string token = e.substr(e.find("\"tuple\":\"") + 9, 18);
    const std::string group = e.substr(e.find("\"group\":\"") + 9, 18);
    auto [it, fresh] = group_of_token.emplace(token, group);
    EXPECT_EQ(it->second, group);
  }
  size_t real = 0;
  for (const engine::Group& g : step.output.groups) {
    for (engine::TupleRef ref : g.members) real += ResolveTuple(step.input, ref).events > 0 ? 1 : 0;
  }
  EXPECT_EQ(group_of_token.size(), real);
}

// The construction is part of the stored state's meaning: a release
// prepared by one version and resumed by the next must draw the same words
// from its stored seed. Expected values from Python's hashlib:
// sha256(seed || counter as 8 little-endian bytes), words little-endian.
TEST(SeedStreamTest, WordsAreSha256OfSeedAndCounter) {
  SeedStream s(SeedOf(1));
  const uint64_t expected[] = {0x9e8e82fa12c26712, 0xc9387130c45f0a50, 0x812878f427940a15, 0x18c74a5a59c86a71,
                               0xfdf89c91819e5573};
  for (uint64_t word : expected) EXPECT_EQ(s.NextU64(), word);
}

TEST(SeedStreamTest, DeterministicPerSeedAndSeedsDiffer) {
  SeedStream a(SeedOf(1)), b(SeedOf(1)), c(SeedOf(2));
  std::set<uint64_t> seen;
  for (int i = 0; i < 100; ++i) {
    const uint64_t x = a.NextU64();
    EXPECT_EQ(x, b.NextU64());
    EXPECT_NE(x, c.NextU64());
    seen.insert(x);
  }
  EXPECT_EQ(seen.size(), 100u);
  EXPECT_NE(NewReleaseSeed(), NewReleaseSeed());
}

}  // namespace
}  // namespace vanon::release
