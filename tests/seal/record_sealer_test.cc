#include "vanon/seal/record_sealer.h"

#include <gtest/gtest.h>

#include <set>

namespace vanon::seal {
namespace {

Keyring Ring(const std::string& spec) {
  std::string error;
  std::optional<Keyring> r = Keyring::Parse(spec, &error);
  EXPECT_TRUE(r) << error;
  return *r;
}

const std::string kA = "a:" + std::string(64, '1');
const std::string kB = "b:" + std::string(64, '2');
const RecordPlace kPlace{"vanon.state.changelog", 3, std::string_view("\x00\x00\x00\x03\x02vehicle", 12)};

TEST(RecordSealer, RoundTripHidesThePlaintext) {
  RecordSealer s(Ring(kA));
  const std::string plain = "Kid Cudi|signature|12345";
  const std::string sealed = s.Seal(kPlace, plain);
  EXPECT_EQ(sealed.find("Kid Cudi"), std::string::npos);
  EXPECT_EQ(RecordSealer::KeyIdOf(sealed), "a");
  Opened o = s.Open(kPlace, sealed);
  ASSERT_EQ(o.status, OpenStatus::kOk);
  EXPECT_EQ(o.plaintext, plain);
  EXPECT_EQ(o.key_id, "a");
  Opened empty = s.Open(kPlace, s.Seal(kPlace, ""));
  ASSERT_EQ(empty.status, OpenStatus::kOk);
  EXPECT_EQ(empty.plaintext, "");
}

TEST(RecordSealer, EqualPlaintextsGiveDifferentValues) {
  RecordSealer s(Ring(kA));
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) seen.insert(s.Seal(kPlace, "same"));
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(RecordSealer, AValueMovedToAnotherPlaceDoesNotOpen) {
  RecordSealer s(Ring(kA));
  const std::string sealed = s.Seal(kPlace, "state");
  RecordPlace other_key = kPlace;
  other_key.key = "\x00\x00\x00\x03\x02other";
  RecordPlace other_partition = kPlace;
  other_partition.partition = 4;
  RecordPlace other_topic = kPlace;
  other_topic.topic = "vanon.dp.partials";
  for (const RecordPlace& p : {other_key, other_partition, other_topic}) {
    Opened o = s.Open(p, sealed);
    EXPECT_EQ(o.status, OpenStatus::kFailed);
    EXPECT_TRUE(o.plaintext.empty());
  }
}

TEST(RecordSealer, AlteredValuesDoNotOpen) {
  RecordSealer s(Ring(kA));
  const std::string sealed = s.Seal(kPlace, "some state value");
  for (size_t i = 5; i < sealed.size(); ++i) {  // every byte after the magic and id length
    std::string bad = sealed;
    bad[i] = static_cast<char>(bad[i] ^ 0x01);
    EXPECT_NE(s.Open(kPlace, bad).status, OpenStatus::kOk) << "byte " << i;
  }
  EXPECT_EQ(s.Open(kPlace, sealed.substr(0, sealed.size() - 1)).status, OpenStatus::kFailed);
  EXPECT_EQ(s.Open(kPlace, sealed.substr(0, 8)).status, OpenStatus::kMalformed);
  EXPECT_EQ(s.Open(kPlace, "plain text state").status, OpenStatus::kNotSealed);
}

TEST(RecordSealer, KeyIdOutsideTheSyntaxIsMalformedAndNotRepeated) {
  RecordSealer s(Ring(kA));
  std::string crafted = s.Seal(kPlace, "some state value");
  crafted[5] = '\n';  // the key id "a" becomes a line break
  const Opened o = s.Open(kPlace, crafted);
  EXPECT_EQ(o.status, OpenStatus::kMalformed);
  EXPECT_EQ(o.key_id, "");
  EXPECT_EQ(RecordSealer::KeyIdOf(crafted), "");
  EXPECT_EQ(RecordSealer::Describe(o, "VANON_STATE_KEYS").find('\n'), std::string::npos);
}

TEST(RecordSealer, RotationOldKeysOpenNewKeySeals) {
  RecordSealer old_ring(Ring(kA));
  const std::string under_a = old_ring.Seal(kPlace, "v1");
  RecordSealer rotated(Ring(kB + "," + kA));
  const std::string under_b = rotated.Seal(kPlace, "v2");
  EXPECT_EQ(RecordSealer::KeyIdOf(under_b), "b");
  EXPECT_EQ(rotated.Open(kPlace, under_a).plaintext, "v1");
  EXPECT_EQ(rotated.Open(kPlace, under_b).plaintext, "v2");
  // The old ring alone cannot open the new key's records, and says which key.
  Opened o = old_ring.Open(kPlace, under_b);
  EXPECT_EQ(o.status, OpenStatus::kUnknownKey);
  EXPECT_EQ(o.key_id, "b");
  EXPECT_NE(RecordSealer::Describe(o, "VANON_STATE_KEYS").find("'b'"), std::string::npos);
}

TEST(RecordSealer, SameIdWrongBytesFailsNamingTheId) {
  RecordSealer right(Ring(kA));
  RecordSealer wrong(Ring("a:" + std::string(64, '9')));
  Opened o = wrong.Open(kPlace, right.Seal(kPlace, "v"));
  EXPECT_EQ(o.status, OpenStatus::kFailed);
  const std::string line = RecordSealer::Describe(o, "VANON_STATE_KEYS");
  EXPECT_NE(line.find("'a'"), std::string::npos);
  EXPECT_EQ(line.find(std::string(64, '9')), std::string::npos);
}

}  // namespace
}  // namespace vanon::seal
