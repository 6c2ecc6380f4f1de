#include "fleet_builder.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "vanon/vehicle/model_year.h"
#include "vanon/vehicle/vin.h"

namespace vanon::fleet::internal {

namespace {

constexpr char kVinChars[] = "0123456789ABCDEFGHJKLMNPRSTUVWXYZ";  // 33
constexpr uint64_t kVinCharCount = 33;
constexpr uint64_t kSerials = 1000000;  // positions 12-17

bool IsElectrified(const std::string& engine) {
  return engine == "EV" || engine == "Hybrid" || engine == "Plug-in Hybrid";
}

// Exact shares: each vehicle's share index (-1 = deliberate unknown),
// counts by the largest-remainder method, order shuffled. With 15 vehicles
// and seed 000's weights this reproduces Table 4.5 exactly.
std::vector<int32_t> Apportion(const FleetDistribution& dist, uint64_t vehicles, base::Random& rng) {
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

// Resolves every share to the table models that carry it; `cumulative`
// holds the shares' integer weights, summed.
void ResolveShares(const FleetDistribution& dist, const VinDecoder& table,
                   std::vector<std::vector<Candidate>>* candidates_out, std::vector<uint64_t>* cumulative_out) {
  std::vector<std::vector<Candidate>>& candidates = *candidates_out;
  std::vector<uint64_t>& cumulative = *cumulative_out;
  double total_weight = 0;
  for (const ModelShare& share : dist.models) total_weight += share.weight;
  uint64_t running = 0;
  for (const ModelShare& share : dist.models) {
    std::vector<Candidate> found;
    for (const Manufacturer& maker : table.manufacturers()) {
      if (!share.manufacturer.empty() && share.manufacturer != maker.name) continue;
      for (const VehicleModel& model : maker.models) {
        if (model.engine == share.engine && model.body == share.body && model.seats == share.seats) {
          found.push_back({&maker, &model});
        }
      }
    }
    if (found.empty()) {
      throw std::runtime_error(dist.source + ":" + std::to_string(share.line) +
                               ": no model in the VIN table has engine=" + share.engine + ", body=" + share.body +
                               ", seats=" + std::to_string(share.seats) +
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
}

// WMI and VDS of a vehicle of `pick`: the model's pattern with its
// wildcards drawn.
std::string KnownVinHead(const Candidate& pick, int year, const ModelYearPolicy& policy, base::Random& rng) {
  std::string vin = pick.maker->wmi;
  for (int k = 0; k < 5; ++k) {
    char c = pick.model->vds[k];
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
  return vin;
}

// The table must decode the VIN drawn for `pick` back to its model and year.
void CheckDecodes(const FleetVehicle& t, const Candidate& pick, int year, const FleetDistribution& dist) {
  const auto& a = t.decoded.attributes;
  if (!t.decoded.known || a[1].second != pick.model->engine || a[2].second != pick.model->body ||
      a[3].second != std::to_string(pick.model->seats) || a[4].second != std::to_string(year)) {
    throw std::runtime_error("fleet: VIN table cannot encode " + pick.maker->name + " " + pick.model->vds +
                             " of model year " + std::to_string(year) +
                             " (an earlier VDS pattern or the model-year rule gets in the way; "
                             "see the model_years of " +
                             dist.source + ")");
  }
}

}  // namespace

void BuildFleet(uint64_t vehicles, bool exact_shares, const FleetDistribution& dist, const VinDecoder& table,
                const ArtistCatalog& artists, base::Random& rng, std::vector<FleetVehicle>* truth_out,
                std::vector<VehicleState>* state_out) {
  std::vector<FleetVehicle>& truth = *truth_out;
  std::vector<VehicleState>& state = *state_out;
  std::vector<std::vector<Candidate>> candidates;
  std::vector<uint64_t> cumulative;
  ResolveShares(dist, table, &candidates, &cumulative);

  const ModelYearPolicy& policy = table.model_year_policy();
  const uint64_t unknown_threshold = base::ChanceThreshold(dist.unknown_fraction);
  const uint32_t year_span = static_cast<uint32_t>(dist.year_to - dist.year_from + 1);
  const std::vector<int32_t> quota = exact_shares ? Apportion(dist, vehicles, rng) : std::vector<int32_t>();
  truth.resize(vehicles);
  state.resize(vehicles);
  for (uint64_t i = 0; i < vehicles; ++i) {
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
      vin = KnownVinHead(*pick, year, policy, rng);
    }
    vin += '0';  // check digit, set below
    vin += *ModelYearCode(year);
    vin += kVinChars[i / kSerials];  // plant; with the serial, unique per vehicle
    std::string serial = std::to_string(i % kSerials);
    vin.append(6 - serial.size(), '0').append(serial);
    vin[8] = VinCheckDigit(vin);

    FleetVehicle& t = truth[i];
    t.decoded = table.Decode(vin);
    if (pick != nullptr) CheckDecodes(t, *pick, year, dist);
    VehicleState& s = state[i];
    vin.copy(s.vin, base::kVinLength);
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

}  // namespace vanon::fleet::internal
