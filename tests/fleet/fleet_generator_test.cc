#include "vanon/fleet/fleet_generator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "event_checks.h"
#include "test_util.h"
#include "vanon/vehicle/vin.h"
#include "vanon/vehicle/vin_decoder.h"

namespace vanon::fleet {
namespace {

const VinDecoder& Table() {
  static const VinDecoder table = VinDecoder::Load(test::SourcePath("config/vehicle/vin-table.yaml"));
  return table;
}

// FNV-1a over what a message carries.
uint64_t Digest(FleetGenerator& gen, int n) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::string_view bytes) {
    for (char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  };
  for (int i = 0; i < n; ++i) {
    const FleetMessage& m = gen.Next();
    mix(m.key);
    // A too_large body is 1 MiB of padding: its head and size suffice.
    mix(std::string_view(m.value).substr(0, 4096));
    mix(std::to_string(m.value.size()));
    mix(std::to_string(m.ts_ms) + "/" + std::to_string(m.vehicle_index));
    mix(m.expected_reject.value_or("-"));
  }
  return h;
}

FleetOptions Small(uint64_t seed) {
  FleetOptions options;
  options.vehicles = 500;
  options.seed = seed;
  options.invalid_fraction = 0.02;
  options.churn = 0.1;
  return options;
}

TEST(FleetGeneratorTest, SameSeedSameBytesOtherSeedOtherBytes) {
  FleetGenerator a(Small(42), Table());
  FleetGenerator b(Small(42), Table());
  FleetGenerator c(Small(43), Table());
  const uint64_t da = Digest(a, 30000);
  EXPECT_EQ(da, Digest(b, 30000));
  EXPECT_NE(da, Digest(c, 30000));
  for (size_t i = 0; i < a.Vehicles().size(); ++i) {
    ASSERT_EQ(a.Vehicles()[i].vin, b.Vehicles()[i].vin);
  }
  EXPECT_NE(a.Vehicles()[0].vin, c.Vehicles()[0].vin);
}

TEST(FleetGeneratorTest, EventTimeAdvancesAtTheConfiguredRate) {
  FleetOptions options = Small(1);
  options.events_per_second = 250;  // 4 ms per message
  FleetGenerator gen(options, Table());
  int64_t last = options.start_ms;
  for (int i = 0; i < 10000; ++i) {
    const FleetMessage& m = gen.Next();
    ASSERT_GE(m.ts_ms, last);
    EXPECT_EQ(m.ts_ms, options.start_ms + 4 * i);
    last = m.ts_ms;
  }
  EXPECT_EQ(gen.messages(), 10000u);
}

TEST(FleetGeneratorTest, ValidMessagesFollowTheDefaultInputFormat) {
  FleetOptions options = Small(3);
  options.vehicles = 300;
  options.invalid_fraction = 0;
  FleetGenerator gen(options, Table());
  const std::set<std::string> events = {"trip_started",        "vehicle_speed",    "location",
                                        "media_track_changed", "touchscreen_used", "charging_started",
                                        "charging_stopped",    "trip_ended"};
  std::map<std::string, int> seen;
  simdjson::dom::parser parser;
  for (int i = 0; i < 30000; ++i) {
    const FleetMessage& m = gen.Next();
    ASSERT_FALSE(m.expected_reject.has_value());
    ASSERT_EQ(test::FirstViolation(m.key, m.value), "") << m.value;
    ASSERT_EQ(m.key, gen.Vehicles()[m.vehicle_index].vin);
    simdjson::dom::element doc = parser.parse(m.value);
    EXPECT_EQ(doc["ts"].get_int64().value(), m.ts_ms);
    const std::string event(doc["event"].get_string().value());
    ASSERT_EQ(events.count(event), 1u) << event;
    ++seen[event];
    simdjson::dom::object payload = doc["payload"].get_object();
    if (event == "vehicle_speed") {
      const double speed = payload["speed_kmh"].get_double();
      EXPECT_GE(speed, 0);
      EXPECT_LE(speed, 180);
    } else if (event == "location") {
      // 20 x 20 km around 48.137154, 11.576124.
      EXPECT_NEAR(payload["location"]["lat"].get_double().value(), 48.137154, 0.0900);
      EXPECT_NEAR(payload["location"]["lon"].get_double().value(), 11.576124, 0.1347);
    } else if (event == "media_track_changed") {
      EXPECT_TRUE(payload["artist"].is_string());
      EXPECT_TRUE(payload["source"].is_string());
    }
  }
  EXPECT_EQ(seen.size(), events.size());  // every kind occurs
}

TEST(FleetGeneratorTest, TripsAreBracketedAndOnlyElectrifiedCarsCharge) {
  FleetOptions options = Small(5);
  options.vehicles = 40;
  options.invalid_fraction = 0;
  options.churn = 0;  // a vehicle that leaves cuts its trip short
  FleetGenerator gen(options, Table());
  struct Trip {
    std::string id;
    bool open = false;
    bool charging = false;
  };
  std::vector<Trip> trips(options.vehicles);
  std::set<std::string> trip_ids;
  int ended = 0;
  int charges = 0;
  simdjson::dom::parser parser;
  for (int i = 0; i < 40000; ++i) {
    const FleetMessage& m = gen.Next();
    simdjson::dom::element doc = parser.parse(m.value);
    const std::string event(doc["event"].get_string().value());
    const std::string trip(doc["trip_id"].get_string().value());
    Trip& t = trips[m.vehicle_index];
    const std::string& engine = gen.Vehicles()[m.vehicle_index].decoded.attributes[1].second;
    if (event == "trip_started") {
      EXPECT_FALSE(t.open) << "trip_started inside a trip";
      EXPECT_TRUE(trip_ids.insert(trip).second) << "trip id reused";
      t = {trip, true, false};
      continue;
    }
    ASSERT_TRUE(t.open) << event << " outside a trip";
    EXPECT_EQ(trip, t.id);
    if (event == "charging_started") {
      EXPECT_TRUE(engine == "EV" || engine == "Hybrid") << engine;
      EXPECT_FALSE(t.charging);
      t.charging = true;
      ++charges;
    } else if (event == "charging_stopped") {
      EXPECT_TRUE(t.charging);
      t.charging = false;
    } else if (event == "trip_ended") {
      EXPECT_FALSE(t.charging);
      t.open = false;
      ++ended;
    } else if (event == "vehicle_speed" && t.charging) {
      ADD_FAILURE() << "driving while charging";
    }
  }
  EXPECT_GT(ended, 100);
  EXPECT_GT(charges, 10);
}

TEST(FleetGeneratorTest, PerVehicleArtistModeIsTheFavourite) {
  FleetOptions options = Small(9);
  options.vehicles = 50;
  options.invalid_fraction = 0;
  options.favourite_change = 0;
  FleetGenerator gen(options, Table());
  std::vector<std::map<std::string, int>> plays(options.vehicles);
  simdjson::dom::parser parser;
  for (int i = 0; i < 100000; ++i) {
    const FleetMessage& m = gen.Next();
    simdjson::dom::element doc = parser.parse(m.value);
    if (std::string_view(doc["event"].get_string().value()) != "media_track_changed") continue;
    ++plays[m.vehicle_index][std::string(doc["payload"]["artist"].get_string().value())];
  }
  std::set<std::string> favourites;
  for (size_t v = 0; v < plays.size(); ++v) {
    ASSERT_GE(plays[v].size(), 2u) << "vehicle " << v << " heard too little";
    std::string mode;
    int best = 0;
    for (const auto& [artist, n] : plays[v]) {
      if (n > best) best = n, mode = artist;
    }
    EXPECT_EQ(mode, gen.Vehicles()[v].favourite_artist) << "vehicle " << v;
    favourites.insert(mode);
  }
  EXPECT_GT(favourites.size(), 5u);  // long tail: favourites differ
}

TEST(FleetGeneratorTest, FavouritesChangeSometimes) {
  FleetOptions options = Small(11);
  options.vehicles = 200;
  options.favourite_change = 0.05;
  options.events_per_second = 1000;  // 10 s epochs: 10000 messages each
  FleetGenerator gen(options, Table());
  for (int i = 0; i < 200000; ++i) gen.Next();  // 19 epoch boundaries
  uint32_t changes = 0;
  for (const FleetVehicle& v : gen.Vehicles()) changes += v.favourite_changes;
  // 200 x 19 x 0.05 = 190 expected redraws (sd ~13.4).
  EXPECT_GT(changes, 120u);
  EXPECT_LT(changes, 260u);
}

TEST(FleetGeneratorTest, ChurnRemovesAndReturnsVehicles) {
  FleetOptions options = Small(13);
  options.vehicles = 1000;
  options.invalid_fraction = 0;
  options.events_per_second = 2000;  // 20000 messages per 10 s epoch
  options.churn = 0.3;
  FleetGenerator gen(options, Table());
  const int epochs = 8;
  std::vector<std::set<uint32_t>> active(epochs);
  for (int e = 0; e < epochs; ++e) {
    for (int i = 0; i < 20000; ++i) active[e].insert(gen.Next().vehicle_index);
  }
  // Steady state: present share 1 / (1 + churn) ~ 0.77.
  for (int e = 2; e < epochs; ++e) {
    EXPECT_GT(active[e].size(), 700u) << e;
    EXPECT_LT(active[e].size(), 840u) << e;
  }
  // Those absent in one epoch come back in the next.
  int returned = 0;
  for (int e = 2; e + 1 < epochs; ++e) {
    for (uint32_t v = 0; v < options.vehicles; ++v) {
      if (active[e].count(v) == 0 && active[e + 1].count(v) == 1) ++returned;
    }
  }
  EXPECT_GT(returned, 4 * 150);

  options.churn = 0;
  FleetGenerator stable(options, Table());
  std::set<uint32_t> all;
  for (int i = 0; i < 20000; ++i) all.insert(stable.Next().vehicle_index);
  EXPECT_GT(all.size(), 990u);
}

TEST(FleetGeneratorTest, ArtistCatalogueIsLongAndSafeToEmbed) {
  FleetGenerator gen(Small(1), Table());
  const std::vector<std::string>& artists = gen.Artists();
  EXPECT_GE(artists.size(), 600u);
  EXPECT_EQ(std::count(artists.begin(), artists.end(), "Radio"), 1);
  EXPECT_EQ(std::set<std::string>(artists.begin(), artists.end()).size(), artists.size());
  for (const std::string& name : artists) {
    EXPECT_TRUE(test::IsUtf8(name)) << name;
    for (char c : name) {
      EXPECT_FALSE(c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) << name;
    }
  }
}

// Touchscreen use is per trip: among completed trips of an engine, the share
// with at least one touchscreen_used event is the option's probability for
// that engine (other engines: touchscreen_trip_share_other), within 4.5
// binomial standard errors. Probabilities 0 and 1 must hold exactly.
void CheckTouchscreenTripShares(const FleetOptions& options, int messages) {
  FleetGenerator gen(options, Table());
  struct Open {
    bool touched = false;
    bool open = false;
  };
  std::vector<Open> open(options.vehicles);
  std::map<std::string, std::pair<int, int>> trips;  // engine -> (touched, all)
  simdjson::dom::parser parser;
  for (int i = 0; i < messages; ++i) {
    const FleetMessage& m = gen.Next();
    simdjson::dom::element doc = parser.parse(m.value);
    const std::string_view event = doc["event"].get_string().value();
    Open& t = open[m.vehicle_index];
    if (event == "trip_started") {
      t = {false, true};
    } else if (event == "touchscreen_used") {
      t.touched = true;
    } else if (event == "trip_ended" && t.open) {
      auto& [touched, all] = trips[gen.Vehicles()[m.vehicle_index].decoded.attributes[1].second];
      touched += t.touched;
      ++all;
      t.open = false;
    }
  }
  for (const auto& [engine, counts] : trips) {
    const auto it = options.touchscreen_trip_share.find(engine);
    const double p = it == options.touchscreen_trip_share.end() ? options.touchscreen_trip_share_other : it->second;
    const double share = static_cast<double>(counts.first) / counts.second;
    std::printf("  %-14s %6d trips, touchscreen share %.3f (option %.2f)\n", engine.c_str(), counts.second, share, p);
    EXPECT_NEAR(share, p, 4.5 * std::sqrt(p * (1 - p) / counts.second)) << engine;
  }
  for (const char* engine : {"EV", "Gas", "Hybrid"}) {
    EXPECT_GT(trips[engine].second, 300) << engine << ": too few trips to tell";
  }
}

TEST(FleetGeneratorTest, TouchscreenUseIsPerTripAndDependsOnTheEngine) {
  FleetOptions options = Small(17);
  options.vehicles = 400;
  options.invalid_fraction = 0;
  options.churn = 0;                               // a cut trip can lose its touchscreen event
  CheckTouchscreenTripShares(options, 1'000'000);  // the defaults

  options.touchscreen_trip_share = {{"EV", 0.1}, {"Gas", 0.75}, {"Hybrid", 1.0}};
  options.touchscreen_trip_share_other = 0;  // Diesel, Hydrogen, unknown, ...
  CheckTouchscreenTripShares(options, 1'000'000);

  options.touchscreen_trip_share_other = 1.5;
  EXPECT_THROW(FleetGenerator(options, Table()), std::invalid_argument);
}

}  // namespace
}  // namespace vanon::fleet
