#include "vanon/fleet/fleet_generator.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "artists.h"
#include "event_format.h"
#include "fleet_builder.h"
#include "json_append.h"
#include "base/random.h"
#include "vanon/fleet/fleet_distribution.h"
#include "vanon/vehicle/vin.h"
#include "vanon/vehicle/vin_decoder.h"
#include "vehicle_state.h"

namespace vanon::fleet {

using internal::AppendEventHead;
using internal::AppendFixed;
using internal::AppendInt;
using internal::AppendPlainString;
using internal::kCentreLat;
using internal::kCentreLon;
using internal::kHalfLat;
using internal::kHalfLon;
using internal::VehicleState;

namespace {

constexpr std::string_view kScreens[] = {"navigation", "media", "climate", "phone", "settings"};

// Independent streams, so e.g. the fleet does not change when the event
// stream draws a different number of words.
enum Stream : uint64_t { kVehicleStream = 1, kEventStream = 2 };

uint64_t StreamSeed(uint64_t seed, Stream stream) {
  uint64_t state = seed ^ (0xA0761D6478BD642Full * static_cast<uint64_t>(stream));
  return base::SplitMix64(state);
}

}  // namespace

class FleetGenerator::Rep {
 public:
  Rep(const FleetOptions& options, const VinDecoder& table);

  const FleetMessage& Next();

  std::vector<FleetVehicle> truth;
  internal::ArtistCatalog artists;
  uint64_t count = 0;

 private:
  void CrossEpoch();
  void WriteEvent(uint32_t v, int64_t ts);
  void WriteTripStart(VehicleState& s, std::string_view vin, int64_t ts);
  void WriteTripEnd(VehicleState& s, std::string_view vin, int64_t ts);
  void WriteInTrip(VehicleState& s, std::string_view vin, int64_t ts, uint64_t r);
  void WriteMalformed(uint32_t v, int64_t ts);
  void WriteTouchscreen(VehicleState& s, int64_t ts);
  int32_t Step(int32_t value, int32_t spread, int32_t lo, int32_t hi) {
    const int32_t next = value + static_cast<int32_t>(rng_.Below(2 * spread + 1)) - spread;
    return std::clamp(next, lo, hi);
  }

  FleetOptions options_;
  base::Random rng_;
  double ms_per_event_;
  uint64_t invalid_threshold_;
  size_t max_message_bytes_ = 1u << 20;
  uint64_t churn_threshold_;
  uint64_t favourite_threshold_;
  int64_t epoch_ = 0;
  uint64_t malformed_ = 0;
  std::vector<VehicleState> state_;
  std::vector<uint32_t> present_;
  std::vector<std::string> artists_json_;   // names, pre-escaped
  std::vector<uint64_t> touch_thresholds_;  // per VehicleState::touch_class
  FleetMessage msg_;
};

FleetGenerator::Rep::Rep(const FleetOptions& options, const VinDecoder& table)
    : options_(options), rng_(StreamSeed(options.seed, kEventStream)) {
  if (options.vehicles == 0 || options.vehicles > internal::kMaxFleetVehicles) {
    throw std::invalid_argument("fleet: vehicles must be in [1, 33000000]");
  }
  if (!(options.invalid_fraction >= 0 && options.invalid_fraction <= 1)) {
    throw std::invalid_argument("fleet: invalid_fraction must be in [0, 1]");
  }
  if (!(options.churn >= 0 && options.churn < 1)) {
    throw std::invalid_argument("fleet: churn must be in [0, 1)");
  }
  if (!(options.favourite_change >= 0 && options.favourite_change <= 1)) {
    throw std::invalid_argument("fleet: favourite_change must be in [0, 1]");
  }
  if (!(options.events_per_second > 0) || !std::isfinite(options.events_per_second)) {
    throw std::invalid_argument("fleet: events_per_second must be positive");
  }
  if (options.churn_epoch_ms <= 0) {
    throw std::invalid_argument("fleet: churn_epoch_ms must be positive");
  }
  auto share_ok = [](double p) { return p >= 0 && p <= 1; };
  if (!share_ok(options.touchscreen_trip_share_other)) {
    throw std::invalid_argument("fleet: touchscreen_trip_share_other must be in [0, 1]");
  }
  for (const auto& [engine, p] : options.touchscreen_trip_share) {
    if (!share_ok(p)) {
      throw std::invalid_argument("fleet: touchscreen_trip_share of " + engine + " must be in [0, 1]");
    }
  }
  ms_per_event_ = 1000.0 / options.events_per_second;
  invalid_threshold_ = base::ChanceThreshold(options.invalid_fraction);
  max_message_bytes_ = options.max_message_bytes;
  churn_threshold_ = base::ChanceThreshold(options.churn);
  favourite_threshold_ = base::ChanceThreshold(options.favourite_change);

  const FleetDistribution dist =
      options.distribution.empty() ? FleetDistribution::Default() : FleetDistribution::Load(options.distribution);
  base::Random fleet_rng(StreamSeed(options.seed, kVehicleStream));
  internal::BuildFleet(options.vehicles, options.exact_shares, dist, table, artists, fleet_rng, &truth, &state_);

  // Class 0 is "other"; each listed engine gets its own class.
  touch_thresholds_.push_back(base::ChanceThreshold(options.touchscreen_trip_share_other));
  std::map<std::string, uint8_t> touch_class;
  for (const auto& [engine, p] : options.touchscreen_trip_share) {
    if (touch_thresholds_.size() > 255) {
      throw std::invalid_argument("fleet: too many touchscreen_trip_share engines");
    }
    touch_class[engine] = static_cast<uint8_t>(touch_thresholds_.size());
    touch_thresholds_.push_back(base::ChanceThreshold(p));
  }
  for (size_t v = 0; v < state_.size(); ++v) {
    auto it = touch_class.find(truth[v].decoded.attributes[1].second);
    state_[v].touch_class = it == touch_class.end() ? 0 : it->second;
  }

  for (const std::string& name : artists.names()) {
    // Catalogue names hold no quote, backslash or control character, so
    // they are valid JSON strings as they are (a unit test checks this).
    artists_json_.push_back("\"" + name + "\"");
  }
  present_.reserve(state_.size());
  for (uint32_t v = 0; v < state_.size(); ++v) present_.push_back(v);
  msg_.key.reserve(base::kVinLength);
  msg_.value.reserve(512);
}

void FleetGenerator::Rep::CrossEpoch() {
  present_.clear();
  for (uint32_t v = 0; v < state_.size(); ++v) {
    VehicleState& s = state_[v];
    if (!s.present) {
      s.present = true;  // back after one epoch away
    } else if (rng_.Chance(churn_threshold_)) {
      s.present = false;  // gone mid-trip: its next trip starts afresh
      s.in_trip = false;
      s.charging = false;
    }
    if (rng_.Chance(favourite_threshold_)) {
      s.favourite = artists.Draw(rng_);
      truth[v].favourite_artist = artists.names()[s.favourite];
      ++truth[v].favourite_changes;
    }
    if (s.present) present_.push_back(v);
  }
  if (present_.empty()) {
    const uint32_t v = static_cast<uint32_t>(rng_.Below(state_.size()));
    state_[v].present = true;
    present_.push_back(v);
  }
}

const FleetMessage& FleetGenerator::Rep::Next() {
  const int64_t offset = static_cast<int64_t>(static_cast<double>(count) * ms_per_event_);
  const int64_t ts = options_.start_ms + offset;
  ++count;
  const int64_t epoch = offset / options_.churn_epoch_ms;
  while (epoch_ < epoch) {
    ++epoch_;
    CrossEpoch();
  }
  const uint32_t v = present_[rng_.Below(present_.size())];
  msg_.ts_ms = ts;
  msg_.vehicle_index = v;
  msg_.value.clear();
  if (rng_.Chance(invalid_threshold_)) {
    WriteMalformed(v, ts);
  } else {
    msg_.expected_reject.reset();
    msg_.key.assign(state_[v].vin, base::kVinLength);
    WriteEvent(v, ts);
  }
  return msg_;
}

void FleetGenerator::Rep::WriteMalformed(uint32_t v, int64_t ts) {
  const size_t reason = malformed_ % kFleetRejectReasons.size();
  const uint64_t variant = malformed_ / kFleetRejectReasons.size();
  ++malformed_;
  const uint32_t other = static_cast<uint32_t>(rng_.Below(truth.size()));
  internal::MalformedInput in;
  in.vin = std::string_view(state_[v].vin, base::kVinLength);
  in.other_vin = std::string_view(state_[other].vin, base::kVinLength);
  in.trip_id = state_[v].in_trip ? state_[v].trip_id : rng_.Next();
  in.ts_ms = ts;
  in.max_message_bytes = max_message_bytes_;
  internal::WriteMalformed(reason, variant, in, rng_, &msg_.key, &msg_.value);
  msg_.expected_reject = kFleetRejectReasons[reason];
}

namespace {
// A charging event: its payload is the state of charge.
void AppendSocEvent(std::string& out, std::string_view vin, uint64_t trip, int64_t ts, std::string_view name,
                    int soc_pct) {
  AppendEventHead(out, vin, trip, ts, name);
  out.append("{\"soc_pct\":");
  AppendInt(out, soc_pct);
  out.append("}}");
}
}  // namespace

void FleetGenerator::Rep::WriteEvent(uint32_t v, int64_t ts) {
  VehicleState& s = state_[v];
  std::string& out = msg_.value;
  const std::string_view vin(s.vin, base::kVinLength);

  if (!s.in_trip) {
    WriteTripStart(s, vin, ts);
    return;
  }
  if (s.trip_left == 0) {
    WriteTripEnd(s, vin, ts);
    return;
  }
  --s.trip_left;
  if (s.trip_left == 0 && s.touch == VehicleState::kTouchPending) {
    // The last event inside a touchscreen trip without a touch yet: make it
    // one, so the trip share is exactly the configured probability (unless
    // churn cuts the trip short first).
    WriteTouchscreen(s, ts);
    return;
  }

  uint64_t r = rng_.Below(100);
  if (s.charging) {
    // Parked at a charger: no driving, the battery fills.
    s.soc_pct = static_cast<uint8_t>(std::min(100, s.soc_pct + 2));
    if (r < 25) {
      s.charging = false;
      AppendSocEvent(out, vin, s.trip_id, ts, "charging_stopped", s.soc_pct);
      return;
    }
    r = 75 + r % 20;  // media or touchscreen only
  } else if (s.electrified && r >= 97) {
    s.charging = true;
    s.speed_dkmh = 0;
    AppendSocEvent(out, vin, s.trip_id, ts, "charging_started", s.soc_pct);
    return;
  }

  if (s.touch == VehicleState::kNoTouch && r >= 87 && r < 95) {
    // Touchscreen slot of a trip without touchscreen use: media while
    // parked at a charger, otherwise driving.
    r = s.charging ? 75 + (r - 87) : r - 87;
  }
  WriteInTrip(s, vin, ts, r);
}

void FleetGenerator::Rep::WriteTripStart(VehicleState& s, std::string_view vin, int64_t ts) {
  std::string& out = msg_.value;
  s.in_trip = true;
  s.trip_id = rng_.Next();
  s.trip_left = static_cast<uint32_t>(10 + rng_.Below(190));
  s.touch = rng_.Chance(touch_thresholds_[s.touch_class]) ? VehicleState::kTouchPending : VehicleState::kNoTouch;
  s.trip_m = 0;
  s.speed_dkmh = 0;
  AppendEventHead(out, vin, s.trip_id, ts, "trip_started");
  out.append("{\"odometer_km\":");
  AppendInt(out, s.odometer_km);
  out.append("}}");
}

// The trip's events are used up: a charge ends first, then the trip.
void FleetGenerator::Rep::WriteTripEnd(VehicleState& s, std::string_view vin, int64_t ts) {
  std::string& out = msg_.value;
  if (s.charging) {
    s.charging = false;
    AppendSocEvent(out, vin, s.trip_id, ts, "charging_stopped", s.soc_pct);
    return;
  }
  s.in_trip = false;
  s.odometer_km += s.trip_m / 1000;
  AppendEventHead(out, vin, s.trip_id, ts, "trip_ended");
  out.append("{\"distance_km\":");
  AppendFixed(out, s.trip_m / 100, 1);
  out.append("}}");
}

// One event inside a trip, by the percentile `r` drawn for it: speed,
// location, media or touchscreen.
void FleetGenerator::Rep::WriteInTrip(VehicleState& s, std::string_view vin, int64_t ts, uint64_t r) {
  std::string& out = msg_.value;
  if (r < 40 || r >= 95) {
    s.speed_dkmh = static_cast<int16_t>(Step(s.speed_dkmh, 100, 0, 1800));
    s.trip_m += static_cast<uint32_t>(s.speed_dkmh) / 10 * 10;  // ~10 s at this speed
    AppendEventHead(out, vin, s.trip_id, ts, "vehicle_speed");
    out.append("{\"speed_kmh\":");
    AppendFixed(out, s.speed_dkmh, 1);
    out.append("}}");
  } else if (r < 75) {
    s.lat = Step(s.lat, 1000, kCentreLat - kHalfLat, kCentreLat + kHalfLat);
    s.lon = Step(s.lon, 1500, kCentreLon - kHalfLon, kCentreLon + kHalfLon);
    AppendEventHead(out, vin, s.trip_id, ts, "location");
    // One object, so a gps_grid transform can coarsen the pair together.
    out.append("{\"location\":{\"lat\":");
    AppendFixed(out, s.lat, 6);
    out.append(",\"lon\":");
    AppendFixed(out, s.lon, 6);
    out.append("}}}");
  } else if (r < 87) {
    // Mostly the favourite, so the per-vehicle mode is stable.
    const uint32_t artist = rng_.Below(100) < 60 ? s.favourite : artists.Draw(rng_);
    AppendEventHead(out, vin, s.trip_id, ts, "media_track_changed");
    out.append("{\"artist\":");
    out.append(artists_json_[artist]);
    out.append(artist == 0 ? ",\"source\":\"radio\"}}" : ",\"source\":\"bluetooth\"}}");
  } else {
    WriteTouchscreen(s, ts);
  }
}

void FleetGenerator::Rep::WriteTouchscreen(VehicleState& s, int64_t ts) {
  s.touch = VehicleState::kTouched;
  std::string& out = msg_.value;
  AppendEventHead(out, std::string_view(s.vin, base::kVinLength), s.trip_id, ts, "touchscreen_used");
  out.append("{\"screen\":");
  AppendPlainString(out, kScreens[rng_.Below(std::size(kScreens))]);
  out.append("}}");
}

FleetGenerator::FleetGenerator(const FleetOptions& options, const VinDecoder& table)
    : rep_(std::make_unique<Rep>(options, table)) {}

FleetGenerator::~FleetGenerator() = default;

const FleetMessage& FleetGenerator::Next() { return rep_->Next(); }

const std::vector<FleetVehicle>& FleetGenerator::Vehicles() const { return rep_->truth; }

uint64_t FleetGenerator::messages() const { return rep_->count; }

const std::vector<std::string>& FleetGenerator::Artists() const { return rep_->artists.names(); }

}  // namespace vanon::fleet
