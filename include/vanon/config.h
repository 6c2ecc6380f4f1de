// The service configuration: plain structs filled from one YAML file.
//
// LoadConfig() is the only way to build a Config that the service trusts: it
// rejects unknown keys, wrong types and out-of-range values, and resolves
// relative file paths, so that code using a Config never re-validates it.
// The key tree and every default are documented in docs/config.md.

#ifndef VANON_CONFIG_H_
#define VANON_CONFIG_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace vanon::config {

// what() holds one problem per line, each "FILE:LINE: key.path: message".
// FILE is "--set" (and LINE the 1-based position of the override) when the
// offending value came from an override.
struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One key refused by a check LoadConfig cannot make with the config alone,
// because it reads a data file the config names (the QI resolver reads the
// VIN table or the registry). LoadConfig's `check` throws it; LoadConfig
// reports it as "FILE:LINE: key: message" like its own refusals. Thrown
// outside LoadConfig, what() is "key: message".
struct KeyError : std::runtime_error {
  KeyError(const std::string& key_path, const std::string& text)
      : std::runtime_error(key_path + ": " + text), key(key_path), message(text) {}
  std::string key;  // dotted key path, e.g. "quasi_identifiers[2].name"
  std::string message;
};

struct KafkaTopics {
  std::string input = "vehicle.events.raw";
  std::string dlq = "vehicle.events.dlq";
  std::string anonymized = "vehicle.events.anonymized";
  std::string releases = "vehicle.releases";
  std::string counts = "vehicle.counts.dp";
  std::string late = "vehicle.events.late";
};

struct KafkaConfig {
  std::string bootstrap;  // required; librdkafka "bootstrap.servers"
  std::string group_id = "vanon";
  std::string transactional_id_prefix = "vanon";
  KafkaTopics topics;
  // Passed verbatim to librdkafka. `properties` go to both clients, the
  // other two to one client each (and win over `properties`).
  std::map<std::string, std::string> properties;
  std::map<std::string, std::string> consumer_properties;
  std::map<std::string, std::string> producer_properties;
  int poll_batch_max = 5000;
  int poll_timeout_ms = 100;
  // Create the internal topics (state changelog, DP partials) at start-up
  // when missing, like Kafka Streams; false: the operator creates them.
  bool create_internal_topics = true;
};

struct InputTimestamp {
  std::string min = "2000-01-01T00:00:00Z";  // as written (RFC 3339)
  int64_t min_ms = 946684800000;             // `min` in ms since the epoch
  int64_t max_future_seconds = 86400;
};

// Dotted JSON paths into an input event.
struct InputFields {
  std::string vin = "vin";
  std::string trip = "trip_id";
  std::string timestamp = "ts";
  std::string event = "event";
  std::string payload = "payload";
};

struct InputConfig {
  int64_t max_message_bytes = 1048576;
  int max_depth = 16;
  InputTimestamp timestamp;
  InputFields fields;
};

enum class VehicleSource { kVinTable, kRegistry, kEventFields };

struct VehicleRegistryConfig {
  std::string file;  // absolute path of a CSV file
  std::string key_column = "vin";
};

struct VehicleConfig {
  VehicleSource source = VehicleSource::kVinTable;
  std::string vin_table;           // absolute path; set when source = kVinTable
  VehicleRegistryConfig registry;  // set when source = kRegistry
  // QI name -> dotted event path; one entry per QI when source = kEventFields.
  std::map<std::string, std::string> fields;
};

enum class QiType { kCategorical, kNumeric };
enum class NumericSplit { kFixedBins, kOnDemand };

struct QuasiIdentifier {
  std::string name;
  QiType type = QiType::kCategorical;
  std::string hierarchy;  // categorical: absolute path of an ARX CSV
  // Numeric only: values in [range_min, range_max] with at most `precision`
  // decimals are generalized to fixed bins of `bin_width`, or split on demand
  // (Mondrian-style); any other value is published under the root.
  NumericSplit split = NumericSplit::kFixedBins;
  double bin_width = 0;
  double range_min = 0;
  double range_max = 0;
  int precision = 0;  // decimals kept, [0, kMaxQiPrecision]
};

// The engine codes a numeric value as value * 10^precision in an int32.
inline constexpr int kMaxQiPrecision = 6;

enum class SensitiveAggregator { kFirst, kMode, kLast, kRegistry };
// What an active vehicle without the field gets: `missing_value` (or it is
// ineligible), or under kCarry its last value for carry_epochs epochs.
enum class MissingPolicy { kMissingValue, kCarry };

struct SensitiveConfig {
  std::string field;  // dotted event path
  SensitiveAggregator aggregator = SensitiveAggregator::kMode;
  std::string registry_column;  // set when aggregator = kRegistry
  // Value for an active vehicle with no event carrying `field`; when absent
  // such a vehicle is suppressed as ineligible.
  std::optional<std::string> missing_value;
  std::string hierarchy;  // optional absolute path of an ARX CSV ("" = none)
  // The windowed aggregator: with aggregator kMode, the mode over the last
  // window_epochs epochs, ties keeping the previous value (1 = the epoch
  // alone). The window, the carried value and the history are per-vehicle
  // state (docs/utility.md). Defaults come from privacy.preset.
  int window_epochs = 1;
  MissingPolicy missing_policy = MissingPolicy::kMissingValue;
  int carry_epochs = 0;
};

enum class PayloadDefault { kDrop, kKeep };
enum class PayloadTransform { kKeep, kDrop, kBin, kGpsGrid };

struct PayloadField {
  std::string path;  // dotted path inside the payload object
  PayloadTransform transform = PayloadTransform::kKeep;
  double width = 0;        // kBin
  double cell_meters = 0;  // kGpsGrid: value is an object {lat, lon}
};

struct PayloadConfig {
  PayloadDefault default_action = PayloadDefault::kDrop;  // key `default`
  std::vector<PayloadField> fields;
  int64_t time_bucket_seconds = 60;
};

enum class PrivacyModel { kMInvariance, kKAnonymity };
// A named set of defaults for the keys that trade suppression against
// counterfeits over many releases (docs/config.md, "Presets"); a key set in
// the file wins over its preset's value.
enum class PrivacyPreset { kEpoch, kWindow, kHistory, kShared };
enum class LateEvents { kTopic, kDrop };

struct EpochConfig {
  int64_t length_seconds = 60;
  int64_t allowed_lateness_seconds = 10;
  int64_t idle_timeout_seconds = 30;
  // Compute a partition's share once its event time passes the epoch's end,
  // during the allowed lateness, and use it at the close if no event of the
  // epoch arrived meanwhile. Nothing is published before the close.
  bool precompute = true;
};

struct PrivacyConfig {
  PrivacyModel model = PrivacyModel::kMInvariance;
  int m = 5;
  int k = 5;
  int l = 0;     // distinct-l cap for k-anonymity; 0 = off
  double t = 0;  // t-closeness cap; 0 = off
  // LoadConfig's default is the preset that measured best on drifting
  // values (docs/config.md); a Config built in code has kEpoch's values.
  PrivacyPreset preset = PrivacyPreset::kEpoch;
  // Some key the preset sets has another value in the file (shown by the
  // vanon_privacy_preset_info metric).
  bool preset_customized = false;
  int max_delay_epochs = 2;
  int signature_retention_days = 365;
  // m-invariance: new vehicles join at most this many shared signatures of
  // shared_signature_size values (0 = m) before forming signatures of their
  // own; 0 = off (docs/utility.md, ReleaseParams::shared_signatures).
  int shared_signatures = 0;
  int shared_signature_size = 0;
  // m-invariance, history-aware signatures (ReleaseParams::history_*): a new
  // signature carries up to history_slots values its members played before
  // (each at least history_min_share of a member's events); a new vehicle
  // with fewer than learn_events events in its history waits, within
  // max_delay_epochs, before its signature is chosen. 0 = off.
  int history_slots = 0;
  double history_min_share = 0.04;
  int learn_events = 0;
  EpochConfig epoch;
  LateEvents late_events = LateEvents::kTopic;
};

enum class DpCount { kEvents, kVehicles, kTrips };
// The `sensitive` dimension's cell of the values dp.sensitive_values does
// not list.
inline constexpr const char* kOtherSensitiveCell = "other";

struct DpQuery {
  std::string name;
  DpCount count = DpCount::kEvents;
  // Each one of "event", "time_bucket" or "qi:<quasi-identifier name>".
  std::vector<std::string> dimensions;
  // Only events matching every entry are counted; keys are "event" or
  // "qi:<name>", values the exact (raw) value.
  std::map<std::string, std::string> filter;
};

struct DpKpi {
  std::string name;
  std::string numerator;    // a DpQuery name
  std::string denominator;  // a DpQuery name with the same dimensions
};

struct DpConfig {
  bool enabled = true;
  double epsilon_per_release = 0.1;
  double budget_epsilon = 10;   // key budget.epsilon
  int budget_period_days = 30;  // key budget.period_days
  int64_t max_per_cell = 1;     // key contribution.max_per_cell
  int64_t max_cells = 4;        // key contribution.max_cells
  // Cells must not depend on the data: the `event` dimension's domain and
  // the `time_bucket` dimension's width are fixed here.
  std::vector<std::string> event_names;
  // The fixed domain of the `sensitive` dimension: every listed value is a
  // cell, every other value counts in the cell kOtherSensitiveCell.
  std::vector<std::string> sensitive_values;
  int64_t time_bucket_seconds = 60;
  // DP window: 0 publishes counts with every release; otherwise
  // counts over windows of this many seconds (a multiple of the epoch length,
  // aligned in event time), published once per window, one ledger charge of
  // epsilon_per_release each, running totals as cumulative sums.
  int64_t window_seconds = 0;
  // One count per cell and window across all input partitions
  // (docs/dp.md "Global counts"): with a topic set, every partition sends its
  // exact window counts to this internal topic (one partition; same ACLs as
  // the raw input), and the owner of input partition `partition` adds noise
  // once and publishes. Needs window_seconds. A window some partition never
  // reported is published without it after max_wait_windows more windows,
  // marked incomplete.
  struct Aggregation {
    std::string topic;  // empty: each partition publishes its own noisy counts
    int32_t partition = 0;
    int64_t max_wait_windows = 24;
  } aggregation;
  std::vector<DpQuery> queries;
  std::vector<DpKpi> kpis;
};

// The state changelog (docs/state.md): every durable change of a release
// also goes to this compacted topic, in the release's transaction, so a
// partition's state follows the partition through the consumer group.
struct ChangelogConfig {
  bool enabled = true;
  std::string topic = "vanon.state.changelog";  // as many partitions as the input topic
  // A partition that published releases but whose state is in neither the
  // changelog nor local state starts over (new signatures) instead of being
  // refused (docs/state.md "Turning the changelog on over existing state").
  bool allow_partitions_without_state = false;
  // Records per transaction when local state seeds the changelog (docs/state.md
  // "Turning the changelog on over existing state"); each transaction also
  // stays under 4 MiB. A seed that stops midway keeps what committed.
  int seed_transaction_records = 20000;
};

struct StateConfig {
  std::string dir;  // required; absolute path
  ChangelogConfig changelog;
};

struct HttpConfig {
  std::string listen = "127.0.0.1:9464";  // as written
  std::string host = "127.0.0.1";         // brackets removed for IPv6
  int port = 9464;
  // /healthz fails while a release batch has been open this long: the
  // release thread runs apart from the consuming loop, whose own heartbeat
  // cannot see it hang.
  int release_stall_seconds = 300;
};

struct SecurityConfig {
  // Name of the environment variable holding the HMAC key. LoadConfig does
  // not read it, so validating a config needs no secret.
  std::string hmac_key_env = "VANON_HMAC_KEY";
  // Name of the environment variable holding the key ring that seals every
  // value written to an internal topic ("ID:HEX[,ID:HEX...]", the first key
  // seals; docs/state.md "Encryption"). Required when the changelog or DP
  // aggregation is on; read, like the HMAC key, by the CLI only.
  std::string state_keys_env = "VANON_STATE_KEYS";
};

enum class LogLevel { kTrace, kDebug, kInfo, kWarn, kError };

struct LoggingConfig {
  LogLevel level = LogLevel::kInfo;
};

struct Config {
  std::string path;  // absolute path of the file this was loaded from
  KafkaConfig kafka;
  InputConfig input;
  VehicleConfig vehicle;
  std::vector<QuasiIdentifier> quasi_identifiers;
  std::optional<SensitiveConfig> sensitive;
  PayloadConfig payload;
  PrivacyConfig privacy;
  DpConfig dp;
  StateConfig state;
  HttpConfig http;
  SecurityConfig security;
  LoggingConfig logging;
};

// True when vanon writes to an internal topic (state changelog, DP
// partials): what it writes there is sealed, so it needs the state keys
// (security.state_keys_env).
inline bool WritesInternalTopics(const Config& c) {
  return c.state.changelog.enabled || (c.dp.enabled && !c.dp.aggregation.topic.empty());
}

// Loads `path`, applies `overrides` ("dotted.key=value", values parsed as
// YAML scalars or flow collections, list items addressed by index, e.g.
// "quasi_identifiers.0.name=x") before validation, resolves relative file
// paths against the config file's directory (against the working directory
// for paths given in an override), and validates. Then, when the config is
// otherwise valid, runs `check` on it (a KeyError it throws becomes a
// ConfigError): `vanon run` and `vanon validate-config` pass the same check,
// so they refuse the same configs. Throws ConfigError.
using ConfigCheck = std::function<void(const Config&)>;
Config LoadConfig(const std::string& path, const std::vector<std::string>& overrides = {},
                  const ConfigCheck& check = {});

// Lower-case names as written in the YAML, e.g. "m_invariance".
const char* ToString(VehicleSource v);
const char* ToString(PrivacyModel v);
const char* ToString(PrivacyPreset v);
const char* ToString(LogLevel v);

}  // namespace vanon::config

#endif  // VANON_CONFIG_H_
