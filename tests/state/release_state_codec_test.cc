// Round trips and hand-built records of the release state encodings
// (layouts documented in docs/state.md).
#include <gtest/gtest.h>

#include <climits>
#include <string>
#include <vector>

#include "vanon/state/release_state.h"

namespace vanon::state {
namespace {

std::string Bytes(std::initializer_list<int> b) {
  std::string s;
  for (int c : b) s.push_back(static_cast<char>(c));
  return s;
}

TEST(StoredSignatureCodec, RoundTrips) {
  for (const StoredSignature& s : {
           StoredSignature{},
           StoredSignature{{0}, 0, 0},
           StoredSignature{{1, 2, 3, 200, 70000, UINT32_MAX}, -12, 40},
           StoredSignature{{7}, INT64_MIN, INT64_MAX},
       }) {
    auto back = StoredSignature::Decode(s.Encode());
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, s);
  }
}

TEST(StoredSignatureCodec, ReadsHandBuiltRecord) {
  // v1, first 3 (zigzag 6), last -1 (zigzag 1), 2 ids: 5, 300 (0xAC 0x02).
  auto s = StoredSignature::Decode(Bytes({1, 6, 1, 2, 5, 0xac, 0x02}));
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->first_release, 3);
  EXPECT_EQ(s->last_release, -1);
  EXPECT_EQ(s->values, (engine::Signature{5, 300}));
}

TEST(StoredSignatureCodec, RejectsMalformed) {
  const std::string good = Bytes({1, 6, 1, 2, 5, 0xac, 0x02});
  ASSERT_TRUE(StoredSignature::Decode(good).has_value());
  EXPECT_FALSE(StoredSignature::Decode("").has_value());
  EXPECT_FALSE(StoredSignature::Decode(Bytes({2, 6, 1, 2, 5, 0xac, 0x02})).has_value());  // version
  EXPECT_FALSE(StoredSignature::Decode(Bytes({0, 6, 1, 2, 5, 0xac, 0x02})).has_value());
  EXPECT_FALSE(StoredSignature::Decode(good + Bytes({0})).has_value());          // trailing byte
  EXPECT_FALSE(StoredSignature::Decode(Bytes({1, 6, 1, 2, 5, 5})).has_value());  // duplicate id
  EXPECT_FALSE(StoredSignature::Decode(Bytes({1, 6, 1, 2, 9, 5})).has_value());  // unsorted
  EXPECT_FALSE(StoredSignature::Decode(Bytes({1, 6, 1, 3, 5, 9})).has_value());  // count > ids
  // Count of four billion with three bytes left: refused before any allocation.
  EXPECT_FALSE(StoredSignature::Decode(Bytes({1, 6, 1, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2, 3})).has_value());
  // Id above 2^32 - 1 (2^32 = 0x80 0x80 0x80 0x80 0x10).
  EXPECT_FALSE(StoredSignature::Decode(Bytes({1, 6, 1, 1, 0x80, 0x80, 0x80, 0x80, 0x10})).has_value());
  // Non-minimal varint for the id 5 (0x85 0x00).
  EXPECT_FALSE(StoredSignature::Decode(Bytes({1, 6, 1, 1, 0x85, 0x00})).has_value());
  // A varint that never ends, and one longer than ten bytes.
  EXPECT_FALSE(StoredSignature::Decode(Bytes({1, 0x80, 0x80})).has_value());
  EXPECT_FALSE(
      StoredSignature::Decode(Bytes({1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 1, 0}))
          .has_value());
  // Ten bytes whose last one carries more than bit 63.
  EXPECT_FALSE(StoredSignature::Decode(Bytes({1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 1, 0}))
                   .has_value());
}

TEST(StoredSignatureCodec, EncodingUnsortedSignatureDoesNotReadBack) {
  // A caller bug (unsorted or repeated values) surfaces at the first read.
  EXPECT_FALSE(StoredSignature::Decode(StoredSignature{{3, 1}, 0, 0}.Encode()).has_value());
  EXPECT_FALSE(StoredSignature::Decode(StoredSignature{{4, 4}, 0, 0}.Encode()).has_value());
}

engine::WaitingTuple MakeWaiting(std::string vehicle, std::vector<int32_t> qi, engine::SensitiveId s, uint32_t events,
                                 uint64_t first) {
  engine::WaitingTuple w;
  w.tuple.vehicle = std::move(vehicle);
  w.tuple.qi = std::move(qi);
  w.tuple.sensitive = s;
  w.tuple.events = events;
  w.first_release = first;
  return w;
}

void ExpectSameWaiting(const engine::WaitingTuple& a, const engine::WaitingTuple& b) {
  EXPECT_EQ(a.tuple.vehicle, b.tuple.vehicle);
  EXPECT_EQ(a.tuple.qi, b.tuple.qi);
  EXPECT_EQ(a.tuple.sensitive, b.tuple.sensitive);
  EXPECT_EQ(a.tuple.events, b.tuple.events);
  EXPECT_EQ(a.first_release, b.first_release);
}

TEST(WaitingTupleCodec, RoundTripsWithVehicleFromKey) {
  const std::string vehicle(32, '\xab');
  for (const engine::WaitingTuple& w : {
           MakeWaiting(vehicle, {}, 0, 0, 0),
           MakeWaiting(vehicle, {0, -1, 1, INT32_MIN, INT32_MAX, 1990}, 17, 3, 12),
           MakeWaiting(vehicle, {5}, UINT32_MAX, UINT32_MAX, UINT64_MAX),
       }) {
    const std::string bytes = EncodeWaitingTuple(w);
    // The vehicle is the key, not part of the value.
    EXPECT_EQ(bytes.find(vehicle), std::string::npos);
    auto back = DecodeWaitingTuple(vehicle, bytes);
    ASSERT_TRUE(back.has_value());
    ExpectSameWaiting(*back, w);
  }
}

// A record with events is v2; without, it keeps its v1 bytes. The events
// come back as they went in, the tuple the same either way.
TEST(WaitingTupleCodec, CarriesTheTuplesEvents) {
  const std::string vehicle(32, '\x01');
  const engine::WaitingTuple w = MakeWaiting(vehicle, {3, -4}, 7, 2, 41);
  const std::vector<WaitingEvent> events = {
      {1'700'000'000'000, 12, "first"}, {1'700'000'001'000, 13, std::string(300, '\0')}, {-5, INT64_MAX, ""}};
  const std::string bytes = EncodeWaitingTuple(w, events);
  EXPECT_EQ(bytes[0], 2);
  EXPECT_EQ(EncodeWaitingTuple(w)[0], 1);
  std::vector<WaitingEvent> back_events;
  auto back = DecodeWaitingTuple(vehicle, bytes, &back_events);
  ASSERT_TRUE(back.has_value());
  ExpectSameWaiting(*back, w);
  EXPECT_EQ(back_events, events);
  // Read without its events (as a share reads waiting tuples).
  auto tuple_only = DecodeWaitingTuple(vehicle, bytes);
  ASSERT_TRUE(tuple_only.has_value());
  ExpectSameWaiting(*tuple_only, w);
  // A v1 record clears what the caller's vector held.
  ASSERT_TRUE(DecodeWaitingTuple(vehicle, EncodeWaitingTuple(w), &back_events));
  EXPECT_TRUE(back_events.empty());
}

TEST(WaitingTupleCodec, RejectsMalformedEvents) {
  // v2, first release 4, 1 QI (2, zigzag 4), sensitive 9, events 1.
  const std::string head = Bytes({2, 4, 1, 4, 9, 1});
  // One event: ts 10 (zigzag 20), offset 3 (zigzag 6), 2 bytes "ab".
  const std::string good = head + Bytes({1, 20, 6, 2, 'a', 'b'});
  std::vector<WaitingEvent> events;
  ASSERT_TRUE(DecodeWaitingTuple("v", good, &events));
  EXPECT_EQ(events, (std::vector<WaitingEvent>{{10, 3, "ab"}}));

  EXPECT_FALSE(DecodeWaitingTuple("v", head).has_value()) << "v2 without its event count";
  EXPECT_FALSE(DecodeWaitingTuple("v", head + Bytes({0})).has_value()) << "v2 with no event is not canonical";
  EXPECT_FALSE(DecodeWaitingTuple("v", head + Bytes({2, 20, 6, 2, 'a', 'b'})).has_value()) << "an event missing";
  EXPECT_FALSE(DecodeWaitingTuple("v", head + Bytes({1, 20, 6, 3, 'a', 'b'})).has_value()) << "bytes cut short";
  EXPECT_FALSE(DecodeWaitingTuple("v", good + Bytes({0})).has_value()) << "trailing byte";
  EXPECT_FALSE(DecodeWaitingTuple("v", head + Bytes({0xff, 0xff, 0x03})).has_value()) << "count beyond the record";
}

TEST(WaitingTupleCodec, ReadsHandBuiltRecordAndRejectsMalformed) {
  // v1, first release 4, 2 QIs: -2 (zigzag 3), 64 (zigzag 128 = 0x80 0x01), sensitive 9, events 2.
  const std::string good = Bytes({1, 4, 2, 3, 0x80, 0x01, 9, 2});
  auto w = DecodeWaitingTuple("v", good);
  ASSERT_TRUE(w.has_value());
  ExpectSameWaiting(*w, MakeWaiting("v", {-2, 64}, 9, 2, 4));

  EXPECT_FALSE(DecodeWaitingTuple("v", "").has_value());
  EXPECT_FALSE(DecodeWaitingTuple("v", Bytes({3, 4, 2, 3, 0x80, 0x01, 9, 2})).has_value());
  EXPECT_FALSE(DecodeWaitingTuple("v", good + Bytes({1})).has_value());
  EXPECT_FALSE(DecodeWaitingTuple("v", Bytes({1, 4, 2, 3, 0x80, 0x01, 9})).has_value());
  // QI count far beyond the record.
  EXPECT_FALSE(DecodeWaitingTuple("v", Bytes({1, 4, 0xff, 0xff, 0x03, 3, 9, 2})).has_value());
  // QI code 2^31 (zigzag 2^32) does not fit int32.
  EXPECT_FALSE(DecodeWaitingTuple("v", Bytes({1, 4, 1, 0x80, 0x80, 0x80, 0x80, 0x10, 9, 2})).has_value());
}

ReleaseLogEntry MakeEntry(ReleaseStatus status, uint8_t seed_base, std::string summary) {
  ReleaseLogEntry e;
  e.status = status;
  for (size_t i = 0; i < e.seed.size(); ++i) e.seed[i] = static_cast<uint8_t>(seed_base + 7 * i);
  e.readback_partition = 3;
  e.readback_offset = 123456789;
  e.prepared_wall_ms = 1763805600123;
  e.committed_wall_ms = status == ReleaseStatus::kCommitted ? 1763805601000 : 0;
  e.summary = std::move(summary);
  return e;
}

TEST(ReleaseLogEntryCodec, RoundTrips) {
  ReleaseLogEntry extremes = MakeEntry(ReleaseStatus::kCommitted, 255, std::string(5000, 'x'));
  extremes.readback_partition = INT32_MIN;
  extremes.readback_offset = INT64_MAX;
  extremes.prepared_wall_ms = INT64_MIN;
  for (const ReleaseLogEntry& e : {
           ReleaseLogEntry{},
           MakeEntry(ReleaseStatus::kPrepared, 1, ""),
           MakeEntry(ReleaseStatus::kCommitted, 9, R"({"release":12,"groups":4})"),
           MakeEntry(ReleaseStatus::kCommitted, 0, std::string("a\0b", 3)),
           extremes,
       }) {
    auto back = ReleaseLogEntry::Decode(e.Encode());
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, e);
  }
}

TEST(ReleaseLogEntryCodec, ReadsHandBuiltRecordAndRejectsMalformed) {
  std::string seed;
  for (int i = 0; i < 32; ++i) seed.push_back(static_cast<char>(i));
  // v1, committed, seed 0..31, partition 1 (zigzag 2), offset -1 (zigzag 1),
  // prepared 10 (20), committed 11 (22), summary "ok".
  const std::string good = Bytes({1, 2}) + seed + Bytes({2, 1, 20, 22, 2, 'o', 'k'});
  auto e = ReleaseLogEntry::Decode(good);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->status, ReleaseStatus::kCommitted);
  EXPECT_EQ(e->seed[31], 31);
  EXPECT_EQ(e->readback_partition, 1);
  EXPECT_EQ(e->readback_offset, -1);
  EXPECT_EQ(e->prepared_wall_ms, 10);
  EXPECT_EQ(e->committed_wall_ms, 11);
  EXPECT_EQ(e->summary, "ok");

  EXPECT_FALSE(ReleaseLogEntry::Decode(Bytes({3, 2}) + seed + Bytes({2, 1, 20, 22, 2, 'o', 'k'})).has_value());
  // v2 needs its offset set.
  EXPECT_FALSE(ReleaseLogEntry::Decode(Bytes({2, 2}) + seed + Bytes({2, 1, 20, 22, 2, 'o', 'k'})).has_value());
  for (int status : {0, 3, 255}) {
    EXPECT_FALSE(ReleaseLogEntry::Decode(Bytes({1, status}) + seed + Bytes({2, 1, 20, 22, 2, 'o', 'k'})).has_value())
        << status;
  }
  EXPECT_FALSE(ReleaseLogEntry::Decode(good + "!").has_value());
  EXPECT_FALSE(ReleaseLogEntry::Decode(Bytes({1, 2}) + seed.substr(0, 31)).has_value());
  // Summary length larger than the rest of the record.
  EXPECT_FALSE(ReleaseLogEntry::Decode(Bytes({1, 2}) + seed + Bytes({2, 1, 20, 22, 3, 'o', 'k'})).has_value());
  EXPECT_FALSE(ReleaseLogEntry::Decode(
                   Bytes({1, 2}) + seed +
                   Bytes({2, 1, 20, 22, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 'o', 'k'}))
                   .has_value());
  // Readback partition 2^31 (zigzag 2^32) does not fit int32.
  EXPECT_FALSE(
      ReleaseLogEntry::Decode(Bytes({1, 2}) + seed + Bytes({0x80, 0x80, 0x80, 0x80, 0x10, 1, 20, 22, 2, 'o', 'k'}))
          .has_value());
}

TEST(ValueWindowCodec, RoundTripsWhatTheWindowHolds) {
  engine::WindowParams params;
  params.epochs = 3;
  params.missing = engine::MissingPolicy::kCarry;
  params.carry_epochs = 4;
  engine::ValueWindow w;
  w.Advance(10, {{7, 3}, {2, 1}}, params);
  w.Advance(11, {{2, 5}}, params);
  w.Advance(12, {}, params);
  const std::string bytes = EncodeValueWindow(w);
  const std::optional<engine::ValueWindow> back = DecodeValueWindow(bytes);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->parts(), w.parts());
  // The decoded window goes on as the original would.
  engine::ValueWindow a = w, b = *back;
  EXPECT_EQ(a.Advance(13, {{7, 1}}, params), b.Advance(13, {{7, 1}}, params));
  EXPECT_EQ(EncodeValueWindow(a), EncodeValueWindow(b));
}

TEST(ValueWindowCodec, RejectsMalformed) {
  engine::WindowParams params;
  params.epochs = 2;
  engine::ValueWindow w;
  w.Advance(5, {{1, 2}}, params);
  w.Advance(6, {{3, 1}}, params);
  const std::string good = EncodeValueWindow(w);
  EXPECT_FALSE(DecodeValueWindow(""));
  EXPECT_FALSE(DecodeValueWindow(std::string(1, '\x02') + good.substr(1))) << "unknown version";
  EXPECT_FALSE(DecodeValueWindow(good.substr(0, good.size() - 1))) << "truncated";
  EXPECT_FALSE(DecodeValueWindow(good + "x")) << "trailing bytes";
  // An epoch after the last Advance: [v1][advanced 1][last_epoch 0][no last][1 epoch: 5, no counts][no history].
  EXPECT_FALSE(DecodeValueWindow(std::string("\x01\x01\x00\x00\x01\x05\x00\x00", 8)));
  EXPECT_TRUE(DecodeValueWindow(std::string("\x01\x05\x00\x00\x01\x05\x00\x00", 8)));
}

TEST(OffsetSetCodec, RoundTripsAndContainsItsOffsets) {
  for (const std::vector<int64_t>& offsets : std::vector<std::vector<int64_t>>{
           {}, {0}, {7}, {5, 3, 4, 100}, {9, 9, 10}, {1000000, 1000007, 1000008, 1000063, 1000064}}) {
    const OffsetSet set = OffsetSet::Of(offsets);
    std::string bytes;
    set.EncodeTo(&bytes);
    std::string_view in = bytes;
    auto back = OffsetSet::DecodeFront(&in);
    ASSERT_TRUE(back.has_value()) << offsets.size();
    EXPECT_TRUE(in.empty());
    EXPECT_EQ(*back, set);
    for (int64_t o : offsets) EXPECT_TRUE(back->Contains(o)) << o;
  }
  const OffsetSet s = OffsetSet::Of({5, 3, 100, 3});
  EXPECT_EQ(s.size(), 3u);
  for (int64_t o : {-1, 0, 2, 4, 6, 99, 101, 1000}) EXPECT_FALSE(s.Contains(o)) << o;
  EXPECT_NE(OffsetSet::Of({3, 5}), OffsetSet::Of({3, 4, 5}));
}

TEST(OffsetSetCodec, ReadsHandBuiltRecordAndRejectsNonCanonical) {
  // base 10 (zigzag 20), 2 bytes: offsets 10, 12 (0b101) and 18 (bit 8).
  std::string bytes = Bytes({20, 2, 0x05, 0x01});
  std::string_view in = bytes;
  auto s = OffsetSet::DecodeFront(&in);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(*s, OffsetSet::Of({10, 12, 18}));
  for (const std::string& bad : {Bytes({20, 2, 0x05, 0x00}),  // trailing zero byte
                                 Bytes({20, 1, 0x04}),        // the base is not a member
                                 Bytes({20, 0}),              // empty with a base
                                 Bytes({20, 3, 0x05}),        // bitmap longer than the rest
                                 Bytes({20})}) {
    std::string_view b = bad;
    EXPECT_FALSE(OffsetSet::DecodeFront(&b).has_value());
  }
}

TEST(ReleaseLogEntryCodec, PreparedEntriesCarryTheirEpochOffsetsAndOldEntriesDecodeWithout) {
  ReleaseLogEntry e = MakeEntry(ReleaseStatus::kPrepared, 4, "");
  const std::string v1 = e.Encode();
  EXPECT_EQ(v1[0], 1) << "an entry without offsets keeps the v1 bytes";
  auto old = ReleaseLogEntry::Decode(v1);
  ASSERT_TRUE(old.has_value());
  EXPECT_FALSE(old->epoch_offsets.has_value());
  for (const std::vector<int64_t>& offsets : std::vector<std::vector<int64_t>>{{}, {42}, {7, 8, 9, 500}}) {
    e.epoch_offsets = OffsetSet::Of(offsets);
    const std::string v2 = e.Encode();
    EXPECT_EQ(v2[0], 2);
    auto back = ReleaseLogEntry::Decode(v2);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, e);
    EXPECT_FALSE(ReleaseLogEntry::Decode(v2 + "!").has_value());
    EXPECT_FALSE(ReleaseLogEntry::Decode(v2.substr(0, v2.size() - 1)).has_value());
  }
}

}  // namespace
}  // namespace vanon::state
