#include "vanon/fleet/fleet_generator.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "artists.h"
#include "event_format.h"
#include "json_append.h"
#include "random.h"
#include "vanon/fleet/fleet_distribution.h"
#include "vanon/vehicle/model_year.h"
#include "vanon/vehicle/vin.h"
#include "vanon/vehicle/vin_decoder.h"

namespace vanon {

using fleet_internal::AppendEventHead;
using fleet_internal::AppendFixed;
using fleet_internal::AppendInt;
using fleet_internal::AppendPlainString;
using fleet_internal::ChanceThreshold;
using fleet_internal::Rng;

namespace {

constexpr char kVinChars[] = "0123456789ABCDEFGHJKLMNPRSTUVWXYZ";  // 33
constexpr uint64_t kVinCharCount = 33;
constexpr uint64_t kSerials = 1000000;  // positions 12-17
constexpr uint64_t kMaxVehicles = kSerials * kVinCharCount;

// A city-sized area: 20 x 20 km around Munich's centre, in microdegrees.
constexpr int32_t kCentreLat = 48137154;
constexpr int32_t kCentreLon = 11576124;
constexpr int32_t kHalfLat = 89900;   // 10 km
constexpr int32_t kHalfLon = 134600;  // 10 km at 48 degrees north

constexpr std::string_view kScreens[] = {"navigation", "media", "climate", "phone", "settings"};

// Independent streams, so e.g. the fleet does not change when the event
// stream draws a different number of words.
enum Stream : uint64_t { kVehicleStream = 1, kEventStream = 2 };

uint64_t StreamSeed(uint64_t seed, Stream stream) {
  uint64_t state = seed ^ (0xA0761D6478BD642Full * static_cast<uint64_t>(stream));
  return fleet_internal::SplitMix64(state);
}

bool IsElectrified(const std::string& engine) {
  return engine == "EV" || engine == "Hybrid" || engine == "Plug-in Hybrid";
}

// Exact shares: each vehicle's share index (-1 = deliberate unknown),
// counts by the largest-remainder method, order shuffled. With 15 vehicles
// and seed 000's weights this reproduces Table 4.5 exactly.
std::vector<int32_t> Apportion(const FleetDistribution& dist, uint64_t vehicles, Rng& rng) {
  const uint64_t unknown = std::min<uint64_t>(
      vehicles, static_cast<uint64_t>(std::llround(dist.unknown_fraction * static_cast<double>(vehicles))));
  const uint64_t known = vehicles - unknown;
  double total = 0;
  for (const ModelShare& share : dist.models) total += share.weight;
  std::vector<uint64_t> count(dist.models.size());
  std::vector<std::pair<double, size_t>> remainders;
  uint64_t given = 0;
  for (size_t k = 0; k < dist.models.size(); ++k) {
    const double exact = static_cast<double>(known) * dist.models[k].weight / total;
    count[k] = static_cast<uint64_t>(std::floor(exact));
    given += count[k];
    remainders.emplace_back(exact - std::floor(exact), k);
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t r = 0; given < known; ++r, ++given) ++count[remainders[r % remainders.size()].second];

  std::vector<int32_t> order;
  order.reserve(vehicles);
  order.insert(order.end(), unknown, -1);
  for (size_t k = 0; k < count.size(); ++k) order.insert(order.end(), count[k], static_cast<int32_t>(k));
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.Below(i)]);
  return order;
}

struct Candidate {
  const Manufacturer* maker;
  const VehicleModel* model;
};

// Simulation state of one vehicle; kept small, it is touched per message.
struct VehicleState {
  char vin[kVinLength];  // copy of the truth's VIN: one cache line per message
  uint64_t trip_id = 0;
  uint32_t trip_left = 0;
  uint32_t favourite = 0;
  uint32_t odometer_km = 0;
  uint32_t trip_m = 0;
  int32_t lat = kCentreLat;
  int32_t lon = kCentreLon;
  int16_t speed_dkmh = 0;  // tenths of km/h
  uint8_t soc_pct = 50;
  bool electrified = false;
  bool in_trip = false;
  bool charging = false;
  bool present = true;
};

}  // namespace

class FleetGenerator::Impl {
 public:
  Impl(const FleetOptions& options, const VinDecoder& table);

  const FleetMessage& Next();

  std::vector<FleetVehicle> truth;
  fleet_internal::ArtistCatalog artists;
  uint64_t count = 0;

 private:
  void BuildFleet(const FleetDistribution& dist, const VinDecoder& table, Rng& rng);
  void CrossEpoch();
  void WriteEvent(uint32_t v, int64_t ts);
  void WriteMalformed(uint32_t v, int64_t ts);
  int32_t Step(int32_t value, int32_t spread, int32_t lo, int32_t hi) {
    const int32_t next = value + static_cast<int32_t>(rng_.Below(2 * spread + 1)) - spread;
    return std::clamp(next, lo, hi);
  }

  FleetOptions options_;
  Rng rng_;
  double ms_per_event_;
  uint64_t invalid_threshold_;
  uint64_t churn_threshold_;
  uint64_t favourite_threshold_;
  int64_t epoch_ = 0;
  uint64_t malformed_ = 0;
  std::vector<VehicleState> state_;
  std::vector<uint32_t> present_;
  std::vector<std::string> artists_json_;  // names, pre-escaped
  FleetMessage msg_;
};

FleetGenerator::Impl::Impl(const FleetOptions& options, const VinDecoder& table)
    : options_(options), rng_(StreamSeed(options.seed, kEventStream)) {
  if (options.vehicles == 0 || options.vehicles > kMaxVehicles) {
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
  ms_per_event_ = 1000.0 / options.events_per_second;
  invalid_threshold_ = ChanceThreshold(options.invalid_fraction);
  churn_threshold_ = ChanceThreshold(options.churn);
  favourite_threshold_ = ChanceThreshold(options.favourite_change);

  const FleetDistribution dist = options.distribution.empty()
                                     ? FleetDistribution::Default()
                                     : FleetDistribution::Load(options.distribution);
  Rng fleet_rng(StreamSeed(options.seed, kVehicleStream));
  BuildFleet(dist, table, fleet_rng);

  for (const std::string& name : artists.names()) {
    // Catalogue names hold no quote, backslash or control character, so
    // they are valid JSON strings as they are (a unit test checks this).
    artists_json_.push_back("\"" + name + "\"");
  }
  present_.reserve(state_.size());
  for (uint32_t v = 0; v < state_.size(); ++v) present_.push_back(v);
  msg_.key.reserve(kVinLength);
  msg_.value.reserve(512);
}

void FleetGenerator::Impl::BuildFleet(const FleetDistribution& dist, const VinDecoder& table,
                                      Rng& rng) {
  // Resolve every share to the table models that carry it.
  std::vector<std::vector<Candidate>> candidates;
  std::vector<uint64_t> cumulative;
  double total_weight = 0;
  for (const ModelShare& share : dist.models) total_weight += share.weight;
  uint64_t running = 0;
  for (const ModelShare& share : dist.models) {
    std::vector<Candidate> found;
    for (const Manufacturer& maker : table.manufacturers()) {
      if (!share.manufacturer.empty() && share.manufacturer != maker.name) continue;
      for (const VehicleModel& model : maker.models) {
        if (model.engine == share.engine && model.body == share.body &&
            model.seats == share.seats) {
          found.push_back({&maker, &model});
        }
      }
    }
    if (found.empty()) {
      throw std::runtime_error(dist.source + ":" + std::to_string(share.line) +
                               ": no model in the VIN table has engine=" + share.engine +
                               ", body=" + share.body + ", seats=" + std::to_string(share.seats) +
                               (share.manufacturer.empty() ? "" : ", manufacturer=" + share.manufacturer));
    }
    candidates.push_back(std::move(found));
    // Integer weights (2^40 in total) keep the draw free of float rounding.
    running += static_cast<uint64_t>(std::llround(share.weight / total_weight * 1099511627776.0));
    cumulative.push_back(running);
  }
  for (const std::string& wmi : dist.unknown_wmis) {
    if (table.FindManufacturer(wmi) != nullptr) {
      throw std::runtime_error(dist.source + ": unknown wmi " + wmi + " is in the VIN table");
    }
  }

  const ModelYearPolicy& policy = table.model_year_policy();
  const uint64_t unknown_threshold = ChanceThreshold(dist.unknown_fraction);
  const uint32_t year_span = static_cast<uint32_t>(dist.year_to - dist.year_from + 1);
  const std::vector<int32_t> quota =
      options_.exact_shares ? Apportion(dist, options_.vehicles, rng) : std::vector<int32_t>();
  truth.resize(options_.vehicles);
  state_.resize(options_.vehicles);
  for (uint64_t i = 0; i < options_.vehicles; ++i) {
    const int year = dist.year_from + static_cast<int>(rng.Below(year_span));
    const bool unknown = quota.empty() ? rng.Chance(unknown_threshold) : quota[i] < 0;
    const Candidate* pick = nullptr;
    std::string vin;
    if (unknown) {
      vin = dist.unknown_wmis[rng.Below(dist.unknown_wmis.size())];
      for (int k = 0; k < 5; ++k) vin += kVinChars[rng.Below(kVinCharCount)];
    } else {
      size_t share = 0;
      if (quota.empty()) {
        const uint64_t u = rng.Below(cumulative.back());
        share = std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin();
      } else {
        share = static_cast<size_t>(quota[i]);
      }
      const std::vector<Candidate>& options = candidates[share];
      pick = &options[rng.Below(options.size())];
      vin = pick->maker->wmi;
      for (int k = 0; k < 5; ++k) {
        char c = pick->model->vds[k];
        if (c == '*') {
          // Position 7 carries the cycle under the North American rule.
          if (k == 3 && policy.rule == ModelYearRule::kPosition7) {
            c = year < 2010 ? kVinChars[rng.Below(10)] : kVinChars[10 + rng.Below(23)];
          } else {
            c = kVinChars[rng.Below(kVinCharCount)];
          }
        }
        vin += c;
      }
    }
    vin += '0';  // check digit, set below
    vin += *ModelYearCode(year);
    vin += kVinChars[i / kSerials];  // plant; with the serial, unique per vehicle
    std::string serial = std::to_string(i % kSerials);
    vin.append(6 - serial.size(), '0').append(serial);
    vin[8] = VinCheckDigit(vin);

    FleetVehicle& t = truth[i];
    t.decoded = table.Decode(vin);
    if (pick != nullptr) {
      const auto& a = t.decoded.attributes;
      if (!t.decoded.known || a[1].second != pick->model->engine ||
          a[2].second != pick->model->body || a[3].second != std::to_string(pick->model->seats) ||
          a[4].second != std::to_string(year)) {
        throw std::runtime_error("fleet: VIN table cannot encode " + pick->maker->name + " " +
                                 pick->model->vds + " of model year " + std::to_string(year) +
                                 " (an earlier VDS pattern or the model-year rule gets in the way; "
                                 "see the model_years of " + dist.source + ")");
      }
    }
    VehicleState& s = state_[i];
    vin.copy(s.vin, kVinLength);
    t.vin = std::move(vin);
    s.favourite = artists.Draw(rng);
    t.favourite_artist = artists.names()[s.favourite];
    s.electrified = IsElectrified(t.decoded.attributes[1].second);
    s.lat = kCentreLat + static_cast<int32_t>(rng.Below(2 * kHalfLat + 1)) - kHalfLat;
    s.lon = kCentreLon + static_cast<int32_t>(rng.Below(2 * kHalfLon + 1)) - kHalfLon;
    s.odometer_km = static_cast<uint32_t>(rng.Below(200000));
    s.soc_pct = static_cast<uint8_t>(20 + rng.Below(80));
  }
}

void FleetGenerator::Impl::CrossEpoch() {
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

const FleetMessage& FleetGenerator::Impl::Next() {
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
    msg_.key.assign(state_[v].vin, kVinLength);
    WriteEvent(v, ts);
  }
  return msg_;
}

void FleetGenerator::Impl::WriteMalformed(uint32_t v, int64_t ts) {
  const size_t reason = malformed_ % kFleetRejectReasons.size();
  const uint64_t variant = malformed_ / kFleetRejectReasons.size();
  ++malformed_;
  const uint32_t other = static_cast<uint32_t>(rng_.Below(truth.size()));
  fleet_internal::MalformedInput in;
  in.vin = std::string_view(state_[v].vin, kVinLength);
  in.other_vin = std::string_view(state_[other].vin, kVinLength);
  in.trip_id = state_[v].in_trip ? state_[v].trip_id : rng_.Next();
  in.ts_ms = ts;
  fleet_internal::WriteMalformed(reason, variant, in, rng_, &msg_.key, &msg_.value);
  msg_.expected_reject = kFleetRejectReasons[reason];
}

void FleetGenerator::Impl::WriteEvent(uint32_t v, int64_t ts) {
  VehicleState& s = state_[v];
  std::string& out = msg_.value;
  const std::string_view vin(s.vin, kVinLength);

  if (!s.in_trip) {
    s.in_trip = true;
    s.trip_id = rng_.Next();
    s.trip_left = static_cast<uint32_t>(10 + rng_.Below(190));
    s.trip_m = 0;
    s.speed_dkmh = 0;
    AppendEventHead(out, vin, s.trip_id, ts, "trip_started");
    out.append("{\"odometer_km\":");
    AppendInt(out, s.odometer_km);
    out.append("}}");
    return;
  }
  if (s.trip_left == 0) {
    if (s.charging) {
      s.charging = false;
      AppendEventHead(out, vin, s.trip_id, ts, "charging_stopped");
      out.append("{\"soc_pct\":");
      AppendInt(out, s.soc_pct);
      out.append("}}");
      return;
    }
    s.in_trip = false;
    s.odometer_km += s.trip_m / 1000;
    AppendEventHead(out, vin, s.trip_id, ts, "trip_ended");
    out.append("{\"distance_km\":");
    AppendFixed(out, s.trip_m / 100, 1);
    out.append("}}");
    return;
  }
  --s.trip_left;

  uint64_t r = rng_.Below(100);
  if (s.charging) {
    // Parked at a charger: no driving, the battery fills.
    s.soc_pct = static_cast<uint8_t>(std::min(100, s.soc_pct + 2));
    if (r < 25) {
      s.charging = false;
      AppendEventHead(out, vin, s.trip_id, ts, "charging_stopped");
      out.append("{\"soc_pct\":");
      AppendInt(out, s.soc_pct);
      out.append("}}");
      return;
    }
    r = 75 + r % 20;  // media or touchscreen only
  } else if (s.electrified && r >= 97) {
    s.charging = true;
    s.speed_dkmh = 0;
    AppendEventHead(out, vin, s.trip_id, ts, "charging_started");
    out.append("{\"soc_pct\":");
    AppendInt(out, s.soc_pct);
    out.append("}}");
    return;
  }

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
    out.append("{\"lat\":");
    AppendFixed(out, s.lat, 6);
    out.append(",\"lon\":");
    AppendFixed(out, s.lon, 6);
    out.append("}}");
  } else if (r < 87) {
    // Mostly the favourite, so the per-vehicle mode is stable.
    const uint32_t artist = rng_.Below(100) < 60 ? s.favourite : artists.Draw(rng_);
    AppendEventHead(out, vin, s.trip_id, ts, "media_track_changed");
    out.append("{\"artist\":");
    out.append(artists_json_[artist]);
    out.append(artist == 0 ? ",\"source\":\"radio\"}}" : ",\"source\":\"bluetooth\"}}");
  } else {
    AppendEventHead(out, vin, s.trip_id, ts, "touchscreen_used");
    out.append("{\"screen\":");
    AppendPlainString(out, kScreens[rng_.Below(std::size(kScreens))]);
    out.append("}}");
  }
}

FleetGenerator::FleetGenerator(const FleetOptions& options, const VinDecoder& table)
    : impl_(std::make_unique<Impl>(options, table)) {}

FleetGenerator::~FleetGenerator() = default;

const FleetMessage& FleetGenerator::Next() { return impl_->Next(); }

const std::vector<FleetVehicle>& FleetGenerator::Vehicles() const { return impl_->truth; }

uint64_t FleetGenerator::messages() const { return impl_->count; }

const std::vector<std::string>& FleetGenerator::Artists() const { return impl_->artists.names(); }

}  // namespace vanon
