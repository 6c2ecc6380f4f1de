#include "service_pipeline.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include "memory_share_state.h"
#include "service/share/release_share.h"
#include "vanon/engine/checker.h"
#include "vanon/release/epoch_clock.h"
#include "vanon/release/event_buffer.h"
#include "vanon/release/payload_transformer.h"
#include "vanon/release/schema_from_config.h"

namespace vanon::utility {

namespace {

constexpr int32_t kPartition = 0;
// UtilitySchema's engine hierarchy, leaf i = the fleet's engine code i.
const char* const kEngines[] = {"BEV", "FCEV", "PHEV", "MHEV", "HEV", "Petrol", "CNG", "Diesel"};

std::string WriteEngineHierarchy() {
  const auto path =
      std::filesystem::temp_directory_path() / ("vanon_utility_engine_" + std::to_string(::getpid()) + ".csv");
  std::ofstream(path) << "BEV;Electric;Electrified;*\nFCEV;Electric;Electrified;*\nPHEV;Hybrid;Electrified;*\n"
                         "MHEV;Hybrid;Electrified;*\nHEV;Hybrid;Electrified;*\nPetrol;Otto;Combustion;*\n"
                         "CNG;Otto;Combustion;*\nDiesel;Diesel;Combustion;*\n";
  return path.string();
}

ingest::HmacToken TokenOf(const std::string& key) {
  // The fleet's keys are short strings; a token is 32 bytes (an HMAC).
  ingest::HmacToken t{};
  for (size_t i = 0; i < key.size() && i < t.size(); ++i) t[i] = static_cast<uint8_t>(key[i]);
  return t;
}

std::string Artist(engine::SensitiveId v) { return "artist-" + std::to_string(v); }

}  // namespace

config::Config ServiceConfig(const std::string& config_file, const std::vector<std::string>& overrides) {
  static const std::string hierarchy = WriteEngineHierarchy();
  std::vector<std::string> all = {"quasi_identifiers=[{name: engine, hierarchy: " + hierarchy +
                                      "}, {name: year, type: numeric, bins: {width: 5}, range: {min: 2000, max: 2029}},"
                                      " {name: seats, type: numeric, split: on_demand, range: {min: 1, max: 9}}]",
                                  "dp.enabled=false", "sensitive.missing_value=Radio"};
  all.insert(all.end(), overrides.begin(), overrides.end());
  return config::LoadConfig(config_file, all);
}

struct ServicePipeline::Rep {
  explicit Rep(const config::Config& c)
      : config(c),
        schema(release::SchemaFromConfig(config.quasi_identifiers, config.sensitive)),
        payload(config.payload),
        clock(config.privacy.epoch),
        buffer(config.privacy.epoch.length_seconds * 1000),
        checker(schema),
        share_checker(schema) {
    ctx.config = &config;
    ctx.schema = &schema;
    ctx.sensitive_extra = 0;
    ctx.input_partitions = 1;
    ctx.state = &state;
    ctx.payload = &payload;
    ctx.inspect = [this](const engine::ReleaseInput& in, const engine::ReleaseOutput& out) {
      // The share reads the signatures of its own vehicles only; the
      // sequence checker wants every stored one (a signature missing from
      // its input is one the state no longer holds).
      engine::ReleaseInput checked = in;
      checked.params.signature_horizon = horizon;
      state.ScanSignatures(kPartition, [&](std::string_view vehicle, const state::StoredSignature& s) {
        checked.known_signatures.emplace(std::string(vehicle), s.values);
        return true;
      });
      violations = checker.Check(checked, out);
    };
  }

  config::Config config;
  engine::Schema schema;
  release::PayloadTransformer payload;
  release::EpochClock clock;
  release::EventBuffer buffer;
  service::MemoryShareState state;
  service::ShareContext ctx;
  engine::ReleaseChecker checker;           // over the whole sequence
  service::PartitionChecker share_checker;  // the service's own, as ReleaseRunner keeps one per partition
  uint64_t horizon = 0;
  std::vector<std::string> violations;
  int64_t next_offset = 0;
};

ServicePipeline::ServicePipeline(std::string name, const config::Config& config)
    : name_(std::move(name)), rep_(std::make_unique<Rep>(config)) {
  rep_->horizon = static_cast<uint64_t>(config.privacy.signature_retention_days) * 86400 /
                  static_cast<uint64_t>(config.privacy.epoch.length_seconds);
}

ServicePipeline::~ServicePipeline() = default;

ReleaseRow ServicePipeline::Release(uint64_t release, const std::vector<EpochActivity>& epoch,
                                    const DriftingFleet& fleet) {
  Rep& r = *rep_;
  const int64_t e = static_cast<int64_t>(release);
  const int64_t start = r.clock.EpochStart(e);
  for (const EpochActivity& a : epoch) {
    ingest::BufferedEvent ev;
    ev.vehicle_key = TokenOf(fleet.key(a.vehicle));
    ev.trip_key = ev.vehicle_key;
    const std::vector<int32_t>& qi = fleet.qi(a.vehicle);
    ev.qi_values = ingest::QiValues({kEngines[qi[0]], std::to_string(qi[1]), std::to_string(qi[2])});
    ev.payload_json = "{}";
    int64_t ts = start;
    auto add = [&](std::string name, std::optional<std::string> value) {
      ev.event = std::move(name);
      ev.ts_ms = ts++;
      ev.extras = {std::move(value)};
      r.buffer.Add({ev.ts_ms, r.next_offset++, ev});
    };
    // Tracks in order of first occurrence, so `mode` breaks ties as on the
    // road; an active vehicle without the field sends another event.
    if (a.tracks.empty()) add("trip_started", std::nullopt);
    for (const engine::ValueCount& c : a.tracks) {
      for (uint32_t i = 0; i < c.count; ++i) add("media_track_changed", Artist(c.value));
    }
  }
  release::ReleaseSeed seed{};
  for (size_t i = 0; i < seed.size(); ++i) seed[i] = static_cast<uint8_t>(release * 31 + i);
  r.violations.clear();
  service::ComputedShare share =
      service::ComputeShare(r.ctx, kPartition, e, seed, false, r.buffer.Take(r.clock.EpochEnd(e)), &r.share_checker);
  violations_ = share.violations;
  violations_.insert(violations_.end(), r.violations.begin(), r.violations.end());
  if (!share.violations.empty()) throw std::runtime_error("share failed its check: " + share.violations.front());
  r.state.Apply(share.delta);
  r.share_checker.checker.Accept(std::move(share.verdict));
  for (release::KeyedEvent& k : share.remaining) r.buffer.Restore(std::move(k));

  ReleaseRow row;
  const engine::ReleaseMetrics& mx = share.metrics;
  row.suppression = mx.suppression_ratio;
  row.conflict = mx.suppression_ratio_by_reason[0];
  row.delay = mx.suppression_ratio_by_reason[1];
  row.ineligible = mx.suppression_ratio_by_reason[2];
  row.counterfeit_ratio = mx.counterfeit_ratio;
  row.ncp = mx.ncp;
  row.min_real = mx.min_group_size;
  row.groups = mx.groups;
  row.published = mx.published;
  row.tuples = mx.tuples;
  row.counterfeits = mx.counterfeits;
  row.violations = violations_.size();
  std::map<engine::Signature, uint64_t> buckets;
  r.state.ScanSignatures(kPartition, [&](std::string_view, const state::StoredSignature& s) {
    ++buckets[s.values];
    return true;
  });
  MeasureBuckets(buckets, &row);
  return row;
}

}  // namespace vanon::utility
