#include "vanon/ingest/buffered_event.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace vanon::ingest {
namespace {

BufferedEvent Sample() {
  BufferedEvent e;
  for (std::size_t i = 0; i < e.vehicle_key.size(); ++i) {
    e.vehicle_key[i] = static_cast<std::uint8_t>(i * 7 + 1);
    e.trip_key[i] = static_cast<std::uint8_t>(255 - i);
  }
  e.ts_ms = 1763805600123;
  e.event = "media_track_changed";
  e.qi_values = {"Electrified", "", "5"};
  e.extras = {std::string("Kid Cudi"), std::nullopt, std::string("")};
  e.payload_json = R"({"artist":"Kid Cudi","source":"bluetooth"})";
  return e;
}

TEST(BufferedEventTest, RoundTrips) {
  const BufferedEvent in = Sample();
  std::string bytes;
  EncodeBufferedEvent(in, &bytes);
  BufferedEvent out;
  ASSERT_TRUE(DecodeBufferedEvent(bytes, &out));
  EXPECT_EQ(out, in);
}

TEST(BufferedEventTest, RoundTripsEmptyAndExtremeValues) {
  for (std::int64_t ts : {std::int64_t{0}, std::int64_t{-1}, std::numeric_limits<std::int64_t>::min(),
                          std::numeric_limits<std::int64_t>::max()}) {
    BufferedEvent in;
    in.ts_ms = ts;
    std::string bytes;
    EncodeBufferedEvent(in, &bytes);
    BufferedEvent out = Sample();  // decode must overwrite every field
    ASSERT_TRUE(DecodeBufferedEvent(bytes, &out));
    EXPECT_EQ(out, in);
  }
}

TEST(BufferedEventTest, RoundTripsLongStringsAndBinary) {
  BufferedEvent in = Sample();
  in.payload_json = std::string(300000, 'x');  // multi-byte varint length
  in.event = std::string("a\0b\xff", 4);
  in.qi_values = std::vector<std::string>(200, "v");
  std::string bytes;
  EncodeBufferedEvent(in, &bytes);
  BufferedEvent out;
  ASSERT_TRUE(DecodeBufferedEvent(bytes, &out));
  EXPECT_EQ(out, in);
}

TEST(BufferedEventTest, EncodeAppends) {
  std::string bytes = "prefix";
  EncodeBufferedEvent(Sample(), &bytes);
  EXPECT_EQ(bytes.substr(0, 6), "prefix");
  BufferedEvent out;
  ASSERT_TRUE(DecodeBufferedEvent(std::string_view(bytes).substr(6), &out));
  EXPECT_EQ(out, Sample());
}

TEST(BufferedEventTest, StartsWithVersionByte) {
  std::string bytes;
  EncodeBufferedEvent(Sample(), &bytes);
  ASSERT_FALSE(bytes.empty());
  EXPECT_EQ(static_cast<std::uint8_t>(bytes[0]), 2);
}

TEST(BufferedEventTest, RejectsEveryTruncation) {
  std::string bytes;
  EncodeBufferedEvent(Sample(), &bytes);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    BufferedEvent out;
    EXPECT_FALSE(DecodeBufferedEvent(std::string_view(bytes).substr(0, n), &out)) << "prefix of " << n << " bytes";
  }
}

TEST(BufferedEventTest, RejectsTrailingBytes) {
  std::string bytes;
  EncodeBufferedEvent(Sample(), &bytes);
  bytes.push_back('\0');
  BufferedEvent out;
  EXPECT_FALSE(DecodeBufferedEvent(bytes, &out));
}

TEST(BufferedEventTest, ReadsVersionOneAndSaysSo) {
  std::string bytes;
  EncodeBufferedEvent(Sample(), &bytes);
  EXPECT_EQ(static_cast<uint8_t>(bytes[0]), kBufferedEventVersion);
  BufferedEvent out;
  uint8_t version = 0;
  ASSERT_TRUE(DecodeBufferedEvent(bytes, &out, &version));
  EXPECT_EQ(version, kBufferedEventVersion);
  bytes[0] = static_cast<char>(kBufferedEventRawPayloadVersion);
  ASSERT_TRUE(DecodeBufferedEvent(bytes, &out, &version));
  EXPECT_EQ(version, kBufferedEventRawPayloadVersion);
  EXPECT_EQ(out, Sample());
}

TEST(BufferedEventTest, RejectsUnknownVersion) {
  std::string bytes;
  EncodeBufferedEvent(Sample(), &bytes);
  for (int version : {0, 3, 255}) {
    bytes[0] = static_cast<char>(version);
    BufferedEvent out;
    EXPECT_FALSE(DecodeBufferedEvent(bytes, &out)) << version;
  }
}

// Offset of the qi count: version + two tokens + ts + event string.
std::size_t QiCountOffset(const BufferedEvent& e) { return 1 + 32 + 32 + 8 + 1 + e.event.size(); }

TEST(BufferedEventTest, RejectsForgedHugeCountWithoutAllocating) {
  const BufferedEvent in = Sample();
  std::string bytes;
  EncodeBufferedEvent(in, &bytes);
  const std::size_t at = QiCountOffset(in);
  ASSERT_EQ(bytes[at], 3);  // three qi values
  // Replace the count by 2^63 (a 10-byte varint).
  std::string forged = bytes.substr(0, at);
  forged.append(9, '\x80');
  forged.push_back('\x01');
  forged.append(bytes.substr(at + 1));
  BufferedEvent out;
  EXPECT_FALSE(DecodeBufferedEvent(forged, &out));
}

TEST(BufferedEventTest, RejectsOverlongVarint) {
  const BufferedEvent in = Sample();
  std::string bytes;
  EncodeBufferedEvent(in, &bytes);
  const std::size_t at = QiCountOffset(in);
  std::string forged = bytes.substr(0, at);
  forged.append(11, '\x80');  // never terminates within 10 bytes
  forged.append(bytes.substr(at));
  BufferedEvent out;
  EXPECT_FALSE(DecodeBufferedEvent(forged, &out));
}

TEST(BufferedEventTest, RejectsBadPresenceByte) {
  BufferedEvent in;
  in.extras = {std::nullopt};
  std::string bytes;
  EncodeBufferedEvent(in, &bytes);
  // Layout tail: extras count (1), presence (0), payload length (0).
  ASSERT_EQ(bytes[bytes.size() - 2], 0);
  bytes[bytes.size() - 2] = 2;
  BufferedEvent out;
  EXPECT_FALSE(DecodeBufferedEvent(bytes, &out));
}

}  // namespace
}  // namespace vanon::ingest
