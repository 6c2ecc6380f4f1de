// Damaged records: every truncation, every bit flip, random garbage. Decoding
// must never crash or read out of bounds (this runs under ASan in CI), must
// reject every strict prefix and every extension, and whatever it accepts
// must be the one canonical encoding of what it returned.
#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "vanon/state/release_state.h"

namespace vanon::state {
namespace {

// Decode then re-encode; nullopt when the decoder rejects the bytes.
using Reencode = std::function<std::optional<std::string>(std::string_view)>;

std::optional<std::string> SignatureReencode(std::string_view b) {
  auto s = StoredSignature::Decode(b);
  if (!s) return std::nullopt;
  return s->Encode();
}

std::optional<std::string> WaitingReencode(std::string_view b) {
  std::vector<WaitingEvent> events;
  auto w = DecodeWaitingTuple("vehicle", b, &events);
  if (!w) return std::nullopt;
  EXPECT_EQ(w->tuple.vehicle, "vehicle");
  return EncodeWaitingTuple(*w, events);
}

std::optional<std::string> ReleaseLogReencode(std::string_view b) {
  auto e = ReleaseLogEntry::Decode(b);
  if (!e) return std::nullopt;
  return e->Encode();
}

std::vector<std::string> SignatureSamples() {
  return {StoredSignature{}.Encode(), StoredSignature{{1, 5, 9, 130, 70000}, -3, 12}.Encode(),
          StoredSignature{{0, UINT32_MAX}, INT64_MIN, INT64_MAX}.Encode()};
}

std::vector<std::string> WaitingSamples() {
  engine::WaitingTuple a;
  a.tuple.qi = {1, -1, 300, INT32_MIN};
  a.tuple.sensitive = 77;
  a.tuple.events = 12;
  a.first_release = 1000;
  engine::WaitingTuple b;
  b.tuple.qi = {};
  b.first_release = UINT64_MAX;
  return {EncodeWaitingTuple(a), EncodeWaitingTuple(b),
          EncodeWaitingTuple(a, {{1000, 3, "an event"}, {-1, INT64_MAX, std::string(200, '\0')}})};
}

std::vector<std::string> ReleaseLogSamples() {
  ReleaseLogEntry a;
  ReleaseLogEntry b;
  b.status = ReleaseStatus::kCommitted;
  for (size_t i = 0; i < b.seed.size(); ++i) b.seed[i] = static_cast<uint8_t>(0xf0 ^ i);
  b.readback_partition = 11;
  b.readback_offset = 99999;
  b.prepared_wall_ms = 1763805600123;
  b.committed_wall_ms = 1763805600999;
  b.summary = R"({"release":4,"partition":2,"groups":17,"suppressed":3})";
  return {a.Encode(), b.Encode()};
}

void Torture(const std::vector<std::string>& samples, const Reencode& reencode) {
  for (const std::string& good : samples) {
    ASSERT_EQ(reencode(good), good);
    for (size_t n = 0; n < good.size(); ++n) {
      // Copies, so ASan sees the exact end of each truncated buffer.
      const std::string prefix = good.substr(0, n);
      EXPECT_FALSE(reencode(prefix).has_value()) << "prefix of " << n << " bytes accepted";
    }
    for (char extra : {'\0', '\x01', '\x80', '\xff'}) {
      EXPECT_FALSE(reencode(good + extra).has_value());
    }
    for (size_t i = 0; i < good.size(); ++i) {
      for (int bit = 0; bit < 8; ++bit) {
        std::string bad = good;
        bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
        auto again = reencode(bad);
        // A flip may yield another valid record, but only as its canonical form.
        if (again) {
          EXPECT_EQ(*again, bad) << "byte " << i << " bit " << bit;
        }
      }
    }
  }
  std::mt19937 rng(20261122);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<size_t> len(0, 64);
  for (int round = 0; round < 3000; ++round) {
    std::string junk(len(rng), '\0');
    for (char& c : junk) c = static_cast<char>(byte(rng));
    // Start with a valid version byte half of the time so the decoder gets past it.
    if (!junk.empty() && round % 2 == 0) junk[0] = 1;
    auto again = reencode(junk);
    if (again) {
      EXPECT_EQ(*again, junk);
    }
  }
}

TEST(ReleaseStateFuzz, StoredSignature) { Torture(SignatureSamples(), SignatureReencode); }
TEST(ReleaseStateFuzz, WaitingTuple) { Torture(WaitingSamples(), WaitingReencode); }
TEST(ReleaseStateFuzz, ReleaseLogEntry) { Torture(ReleaseLogSamples(), ReleaseLogReencode); }

}  // namespace
}  // namespace vanon::state
