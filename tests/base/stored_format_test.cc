// Golden bytes of every binary stored format, as the code before src/base
// wrote them (generated at c349e66 with the replaced coders: ingest/coding.h,
// release/coding.h, state/byte_codec.h, state/key_codec.h, dp/ledger_store.cc).
// Existing RocksDB state and changelog records must decode to the same values,
// and today's encoders must still write exactly these bytes.

#include <gtest/gtest.h>

#include <string>

#include "base/hex.h"
#include "service/collector/changelog_writer.h"
#include "state/key_codec.h"
#include "vanon/config.h"
#include "vanon/dp/ledger_store.h"
#include "vanon/ingest/buffered_event.h"
#include "vanon/release/epoch_clock.h"
#include "vanon/release/sensitive_dictionary.h"
#include "vanon/state/release_state.h"

namespace vanon::base {
namespace {

std::string Bytes(std::string_view hex) {
  std::string out;
  EXPECT_TRUE(HexDecode(hex, &out)) << hex;
  return out;
}

constexpr char kBufferedEvent[] =
    "02000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1ffffefdfcfbfaf9f8f7f6f5f4f3f2f1f0efeeedecebeae9"
    "e8e7e6e5e4e3e2e1e035fb048ee0feffff0573706565640303424d570432303139000200010378c3a9c801";

TEST(StoredFormatTest, BufferedEvent) {
  const std::string old = Bytes(kBufferedEvent) + std::string(200, 'p');
  ingest::BufferedEvent e;
  uint8_t version = 0;
  ASSERT_TRUE(DecodeBufferedEvent(old, &e, &version));
  EXPECT_EQ(version, 2);
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(e.vehicle_key[i], i);
    EXPECT_EQ(e.trip_key[i], 0xff - i);
  }
  EXPECT_EQ(e.ts_ms, -1234567890123);
  EXPECT_EQ(e.event, "speed");
  EXPECT_EQ(e.qi_values.values(), (std::vector<std::string>{"BMW", "2019", ""}));
  ASSERT_EQ(e.extras.size(), 2u);
  EXPECT_FALSE(e.extras[0]);
  EXPECT_EQ(e.extras[1], "x\xc3\xa9");
  EXPECT_EQ(e.payload_json, std::string(200, 'p'));
  std::string again;
  EncodeBufferedEvent(e, &again);
  EXPECT_EQ(again, old);
}

TEST(StoredFormatTest, StoredSignature) {
  const std::string old = Bytes("01098eda9601040003ac02f0a204");
  auto s = state::StoredSignature::Decode(old);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->values, (engine::Signature{0, 3, 300, 70000}));
  EXPECT_EQ(s->first_release, -5);
  EXPECT_EQ(s->last_release, 1234567);
  EXPECT_EQ(s->Encode(), old);
}

TEST(StoredFormatTest, WaitingTuple) {
  const std::string old = Bytes("0163040100820280f1044d03");
  auto w = state::DecodeWaitingTuple("veh", old);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->tuple.vehicle, "veh");
  EXPECT_EQ(w->tuple.qi, (std::vector<int32_t>{-1, 0, 129, 40000}));
  EXPECT_EQ(w->tuple.sensitive, 77u);
  EXPECT_EQ(w->tuple.events, 3u);
  EXPECT_EQ(w->first_release, 99u);
  EXPECT_EQ(state::EncodeWaitingTuple(*w), old);
}

// The same tuple with one event inside the record (v2): ts 1000, offset 5,
// bytes "hi".
TEST(StoredFormatTest, WaitingTupleWithItsEvents) {
  const std::string v2 = Bytes("0263040100820280f1044d0301d00f0a026869");
  std::vector<state::WaitingEvent> events;
  auto w = state::DecodeWaitingTuple("veh", v2, &events);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->tuple.qi, (std::vector<int32_t>{-1, 0, 129, 40000}));
  EXPECT_EQ(w->tuple.sensitive, 77u);
  EXPECT_EQ(w->first_release, 99u);
  EXPECT_EQ(events, (std::vector<state::WaitingEvent>{{1000, 5, "hi"}}));
  EXPECT_EQ(state::EncodeWaitingTuple(*w, events), v2);
}

TEST(StoredFormatTest, ReleaseLogEntries) {
  const std::string committed = Bytes(
      "0102000306090c0f1215181b1e2124272a2d303336393c3f4245484b4e5154575a5d08aab4de7580a0abfef962e8a7abfef9620d7b2272"
      "656c65617365223a357d");
  auto c = state::ReleaseLogEntry::Decode(committed);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->status, state::ReleaseStatus::kCommitted);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(c->seed[i], 3 * i);
  EXPECT_EQ(c->readback_partition, 4);
  EXPECT_EQ(c->readback_offset, 123456789);
  EXPECT_EQ(c->prepared_wall_ms, 1700000000000);
  EXPECT_EQ(c->committed_wall_ms, 1700000000500);
  EXPECT_EQ(c->summary, "{\"release\":5}");
  EXPECT_EQ(c->Encode(), committed);

  const std::string prepared = Bytes("0101000306090c0f1215181b1e2124272a2d303336393c3f4245484b4e5154575a5d020e540000");
  auto p = state::ReleaseLogEntry::Decode(prepared);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->status, state::ReleaseStatus::kPrepared);
  EXPECT_EQ(p->readback_partition, 1);
  EXPECT_EQ(p->readback_offset, 7);
  EXPECT_EQ(p->prepared_wall_ms, 42);
  EXPECT_FALSE(p->epoch_offsets.has_value()) << "written before the offsets existed";
  EXPECT_EQ(p->Encode(), prepared);
}

TEST(StoredFormatTest, DpLedgerEntry) {
  const std::string old = Bytes("01020304050607080000018bcfe56800000000000ee6b280");
  auto e = dp::DecodeLedgerEntry(old);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->release_id, 0x0102030405060708ull);
  EXPECT_EQ(e->release_ts_ms, 1700000000000);
  EXPECT_EQ(e->epsilon_nanos, 250000000);
  EXPECT_EQ(dp::EncodeLedgerEntry(*e), old);
}

TEST(StoredFormatTest, EpochClockState) {
  const std::string old = Bytes("010390c7e6cf8b010000d06fe5cf8b01000080a0e6cf8b0100001555b00100000000");
  config::EpochConfig config;
  release::EpochClock clock(config);
  ASSERT_TRUE(clock.DecodeState(old));
  EXPECT_EQ(clock.EncodeState(), old);
  // Written after events at 1700000000123 and 1700000090000 (60 s epochs,
  // 10 s lateness): epoch 28333333 is closable, the next is not.
  EXPECT_EQ(clock.NextClosable(), std::optional<int64_t>(28333333));
}

TEST(StoredFormatTest, SensitiveDictionary) {
  const std::string old = Bytes("03000000000000000400000000000000726f636b000000000000000004000000000000006a617a7a");
  release::SensitiveDictionary d;
  ASSERT_TRUE(d.DecodeState(old));
  EXPECT_EQ(d.Find("rock"), std::optional<engine::SensitiveId>(0));
  EXPECT_EQ(d.Find(""), std::optional<engine::SensitiveId>(1));
  EXPECT_EQ(d.Find("jazz"), std::optional<engine::SensitiveId>(2));
  EXPECT_EQ(d.EncodeState(), old);
}

TEST(StoredFormatTest, ColumnFamilyKeys) {
  EXPECT_EQ(state::EventKey(3, 1700000000123, 42), Bytes("000000030000018bcfe5687b000000000000002a"));
  int32_t partition = 0;
  int64_t ts = 0, offset = 0;
  ASSERT_TRUE(state::DecodeEventKey(Bytes("000000030000018bcfe5687b000000000000002a"), &partition, &ts, &offset));
  EXPECT_EQ(partition, 3);
  EXPECT_EQ(ts, 1700000000123);
  EXPECT_EQ(offset, 42);
  EXPECT_EQ(state::MetaKey(2, "clock"), Bytes("636c6f636b2f00000002"));
  EXPECT_EQ(state::VehicleKey(1, "\x01\xff"), Bytes("0000000101ff"));
  EXPECT_EQ(state::ReleaseKey(0, -2), Bytes("000000007ffffffffffffffe"));
  EXPECT_EQ(state::ReleaseKey(5, 28333333), Bytes("000000058000000001b05515"));
  int64_t release = 0;
  ASSERT_TRUE(state::DecodeReleaseKey(Bytes("000000007ffffffffffffffe"), &release));
  EXPECT_EQ(release, -2);
}

TEST(StoredFormatTest, ChangelogKey) {
  // [partition u32 BE][family u8][key as stored in the column family]
  const std::string old = Bytes("00000007030000000761626364");
  state::StateChange c;
  int32_t partition = 0;
  ASSERT_TRUE(service::DecodeChangelogKey(old, &partition, &c));
  EXPECT_EQ(partition, 7);
  EXPECT_EQ(c.family, state::StateFamily::kSignatures);
  EXPECT_EQ(c.key, Bytes("0000000761626364"));
  EXPECT_EQ(service::ChangelogKey(7, c), old);
  // The store key must be one of the partition's own (a restore writes it
  // as it is): here partition 8's, in partition 7's changelog.
  EXPECT_FALSE(service::DecodeChangelogKey(Bytes("00000007030000000861626364"), &partition, &c));
}

}  // namespace
}  // namespace vanon::base
