#include "vanon/release/payload_transformer.h"

#include <gtest/gtest.h>

#include "vanon/ingest/event_parser.h"

#include <cmath>
#include <numbers>

namespace vanon::release {
namespace {

config::PayloadField Field(std::string path, config::PayloadTransform t, double width = 0, double cell = 0) {
  config::PayloadField f;
  f.path = std::move(path);
  f.transform = t;
  f.width = width;
  f.cell_meters = cell;
  return f;
}

config::PayloadConfig Cfg(config::PayloadDefault d, std::vector<config::PayloadField> fields) {
  config::PayloadConfig c;
  c.default_action = d;
  c.fields = std::move(fields);
  c.time_bucket_seconds = 60;
  return c;
}

TEST(PayloadTransformerTest, DefaultDropPublishesOnlyListedFields) {
  PayloadTransformer t(Cfg(config::PayloadDefault::kDrop, {Field("source", config::PayloadTransform::kKeep),
                                                           Field("artist", config::PayloadTransform::kDrop)}));
  EXPECT_EQ(t.Transform(R"({"artist":"Kid Cudi","source":"bluetooth","vol":3})"), R"({"source":"bluetooth"})");
  EXPECT_EQ(t.Transform(R"({"x":1})"), "{}");
}

TEST(PayloadTransformerTest, DefaultKeepDropsListedAndKeepsTheRest) {
  PayloadTransformer t(Cfg(config::PayloadDefault::kKeep, {Field("artist", config::PayloadTransform::kDrop),
                                                           Field("pos.raw", config::PayloadTransform::kDrop)}));
  EXPECT_EQ(t.Transform(R"({"artist":"A","vol":3,"l":[1,{"a":"\"q\""}],"pos":{"raw":1,"ok":true}})"),
            R"({"vol":3,"l":[1,{"a":"\"q\""}],"pos":{"ok":true}})");
}

TEST(PayloadTransformerTest, NestedListedPathKeepsStructureUnderDefaultDrop) {
  PayloadTransformer t(Cfg(config::PayloadDefault::kDrop, {Field("car.speed", config::PayloadTransform::kBin, 10)}));
  EXPECT_EQ(t.Transform(R"({"car":{"speed":57.5,"vin":"X"},"other":1})"), R"({"car":{"speed":50}})");
  EXPECT_EQ(t.Transform(R"({"car":{"vin":"X"}})"), "{}");
}

// Every member's path is its parent's path, a dot and its key, however the
// members before it were decided (written, dropped, or recursed into); a
// rule on an object wins over rules below it.
TEST(PayloadTransformerTest, NestedPathsFollowTheirParentsInAnyOrder) {
  PayloadTransformer t(
      Cfg(config::PayloadDefault::kDrop,
          {Field("a.b.c", config::PayloadTransform::kKeep), Field("x.y", config::PayloadTransform::kBin, 10),
           Field("p", config::PayloadTransform::kKeep), Field("p.q", config::PayloadTransform::kDrop),
           Field("n", config::PayloadTransform::kDrop)}));
  EXPECT_EQ(t.Transform(R"({"n":{"b":1},"a":{"b":{"c":[1,"s"],"d":2},"e":3},"x":{"y":17,"z":{"y":1}},)"
                        R"("p":{"q":1,"r":2},"k\"ey":1})"),
            R"({"a":{"b":{"c":[1,"s"]}},"x":{"y":10},"p":{"q":1,"r":2}})");
  EXPECT_EQ(t.Transform(R"({"x":{"y":3},"a":{"b":{"c":0}}})"), R"({"x":{"y":0},"a":{"b":{"c":0}}})");
  EXPECT_EQ(t.Transform(R"({"a":{"b":5},"x":"s","y":1})"), "{}");
}

TEST(PayloadTransformerTest, DefaultKeepKeepsEmptiedParentsAndEscapesKeys) {
  PayloadTransformer t(Cfg(config::PayloadDefault::kKeep, {Field("a.b.c", config::PayloadTransform::kDrop),
                                                           Field("q\"k", config::PayloadTransform::kDrop)}));
  EXPECT_EQ(t.Transform(R"({"a":{"b":{"c":1}},"z":{"c":1},"q\"k":2,"w\"":{"b":1}})"),
            R"({"a":{"b":{}},"z":{"c":1},"w\"":{"b":1}})");
}

TEST(PayloadTransformerTest, BinGivesLowerBoundAsNumber) {
  PayloadTransformer t(Cfg(config::PayloadDefault::kDrop, {Field("v", config::PayloadTransform::kBin, 0.1)}));
  EXPECT_EQ(t.Transform(R"({"v":0.35})"), R"({"v":0.3})");
  EXPECT_EQ(t.Transform(R"({"v":-0.01})"), R"({"v":-0.1})");
  EXPECT_EQ(t.Transform(R"({"v":0})"), R"({"v":0})");
  PayloadTransformer u(Cfg(config::PayloadDefault::kDrop, {Field("v", config::PayloadTransform::kBin, 25)}));
  EXPECT_EQ(u.Transform(R"({"v":18446744073709551615})"), R"({"v":1.84467440737096e+19})");
  EXPECT_EQ(u.Transform(R"({"v":-7})"), R"({"v":-25})");
  EXPECT_EQ(u.stats().malformed_fields, 0u);
}

TEST(PayloadTransformerTest, MalformedValuesAreDroppedAndCounted) {
  PayloadTransformer t(Cfg(config::PayloadDefault::kKeep, {Field("v", config::PayloadTransform::kBin, 10),
                                                           Field("g", config::PayloadTransform::kGpsGrid, 0, 100)}));
  const char* bad[] = {R"({"v":"12","g":{"lat":1}})", R"({"v":null,"g":[1,2]})",
                       R"({"v":{"x":1},"g":{"lat":91,"lon":0}})", R"({"v":true,"g":{"lat":"1","lon":2}})",
                       R"({"v":1e308,"g":{"lat":0,"lon":-180.5}})"};
  uint64_t expected = 0;
  for (const char* p : bad) {
    const std::string out = t.Transform(p);
    expected += out.find("\"v\"") == std::string::npos ? 1 : 0;
    expected += 1;
    EXPECT_EQ(out.find("\"g\""), std::string::npos) << p;
  }
  // 1e308 / 10 floors to a finite lower bound: published.
  EXPECT_EQ(t.Transform(R"({"v":1e308})"), R"({"v":1e+308})");
  EXPECT_EQ(t.stats().malformed_fields, expected);
  EXPECT_EQ(expected, 9u);
  for (const char* p : {"", "[1]", "{\"a\":", "nul", "\"s\""}) EXPECT_EQ(t.Transform(p), "{}") << p;
  EXPECT_EQ(t.stats().malformed_payloads, 5u);
}

TEST(PayloadTransformerTest, GpsSnapsToCellCentreWithCellSizedCells) {
  const double cell = 1000;
  PayloadTransformer t(Cfg(config::PayloadDefault::kDrop, {Field("gps", config::PayloadTransform::kGpsGrid, 0, cell)}));
  EXPECT_EQ(t.Transform(R"({"gps":{"lat":48.137,"lon":11.575,"alt":520}})").find("alt"), std::string::npos);

  // Points in one cell map to the same centre; the centre is within half a
  // cell diagonal of the point, and a point 1.5 cells north is elsewhere.
  const double m_per_deg = 6371008.8 * std::numbers::pi / 180;
  for (double lat : {-89.99, -45.0, 0.0, 48.137, 70.0, 90.0}) {
    for (double lon : {-180.0, -0.001, 11.575, 179.999, 180.0}) {
      const GridPoint p = GridCellCentre(lat, lon, cell);
      const GridPoint q = GridCellCentre(p.lat, p.lon, cell);
      EXPECT_DOUBLE_EQ(p.lat, q.lat);
      EXPECT_DOUBLE_EQ(p.lon, q.lon);
      const double dy = (p.lat - lat) * m_per_deg;
      double dlon = std::abs(p.lon - lon);
      dlon = std::min(dlon, 360 - dlon);
      const double dx = dlon * m_per_deg * std::cos(p.lat * std::numbers::pi / 180);
      EXPECT_LE(std::abs(dy), cell / 2 + 1) << lat << "," << lon;
      if (std::abs(lat) < 80) {
        EXPECT_LE(dx, cell / 2 * 1.02 + 1) << lat << "," << lon;
      }
      if (lat < 80) {
        EXPECT_NE(GridCellCentre(lat + 1.5 * cell / m_per_deg, lon, cell).lat, p.lat);
      }
    }
  }
}

// Ingestion parses once: the parser hands its payload object to the
// transformer. The result must equal transforming the minified payload, and
// a rejected event must not reach the transformer (its malformed-field count
// is a metric of accepted events).
TEST(PayloadTransformerTest, ParserSinkGivesTheSameBytesAsTransformingTheMinifiedPayload) {
  const config::PayloadConfig cfg = Cfg(
      config::PayloadDefault::kKeep,
      {Field("speed", config::PayloadTransform::kBin, 10), Field("pos", config::PayloadTransform::kGpsGrid, 0, 1000),
       Field("bad", config::PayloadTransform::kBin, 10), Field("artist", config::PayloadTransform::kDrop)});
  PayloadTransformer sink(cfg);
  PayloadTransformer reference(cfg);
  ingest::EventParser plain(ingest::FieldMapping{}, ingest::ValidationLimits{});
  ingest::EventParser parser(ingest::FieldMapping{}, ingest::ValidationLimits{});
  parser.SetPayloadSink(&sink);
  const std::string vin = "WVWZZZ1KZAW000001";
  const std::string body = R"({"vin":"WVWZZZ1KZAW000001","trip_id":"t1","ts":1763805600123,"event":"e",)"
                           R"("payload":{"speed":57.5,"pos":{"lat":48.137,"lon":11.575},"bad":"x",)"
                           R"("artist":"Kid Cudi","n":{"a":[1,2.50,"s"]}}})";
  ingest::ParsedEvent raw, transformed;
  ingest::Rejection rejection;
  ASSERT_TRUE(plain.Parse(vin, body, 1763805600123, &raw, &rejection)) << rejection.detail;
  ASSERT_TRUE(parser.Parse(vin, body, 1763805600123, &transformed, &rejection)) << rejection.detail;
  EXPECT_EQ(transformed.payload_json, reference.Transform(raw.payload_json));
  EXPECT_EQ(sink.stats().malformed_fields, 1u);  // "bad"
  EXPECT_EQ(transformed.payload_json.find("Kid Cudi"), std::string::npos);

  // Rejected last (no key): the sink is not called.
  ASSERT_FALSE(parser.Parse("", body, 1763805600123, &transformed, &rejection));
  EXPECT_EQ(sink.stats().malformed_fields, 1u);

  // An absent optional payload is "{}" either way.
  ingest::FieldMapping optional;
  optional.payload_required = false;
  ingest::EventParser no_payload(optional, ingest::ValidationLimits{});
  no_payload.SetPayloadSink(&sink);
  ASSERT_TRUE(no_payload.Parse(vin, R"({"vin":"WVWZZZ1KZAW000001","trip_id":"t1","ts":1763805600123,"event":"e"})",
                               1763805600123, &transformed, &rejection))
      << rejection.detail;
  EXPECT_EQ(transformed.payload_json, "{}");
}

TEST(PayloadTransformerTest, PublishedTimeFloorsToBucket) {
  PayloadTransformer t(Cfg(config::PayloadDefault::kDrop, {}));
  EXPECT_EQ(t.PublishedTime(1763805659999), 1763805600000);
  EXPECT_EQ(t.PublishedTime(1763805600000), 1763805600000);
  EXPECT_EQ(t.PublishedTime(-1), -60000);
}

}  // namespace
}  // namespace vanon::release
