// The engine-facing values of a vehicle in one epoch, derived from the raw
// ground truth without the service's TupleBuilder: QI codes from the raw QI
// values, and the sensitive value aggregated from the raw payloads.
#ifndef VANON_TESTS_E2E_TRUTH_VALUES_H_
#define VANON_TESTS_E2E_TRUTH_VALUES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vanon/config.h"
#include "vanon/engine/release.h"
#include "vanon/engine/schema.h"

namespace vanon::e2e {

class TruthValues {
 public:
  // Throws std::invalid_argument for a config the check does not model
  // (no sensitive attribute, a sensitive field outside the payload, the
  // registry aggregator).
  TruthValues(const config::Config& config, const engine::Schema& schema);

  // Codes of raw QI values in config order ("*" of an unknown VIN is
  // kUnknownQiCode); nullopt when one lies outside its domain (a name that
  // is no leaf, a non-number), i.e. ineligible.
  // Numbers are clamped to the configured range, then rounded.
  std::optional<std::vector<int32_t>> EncodeQi(const std::vector<std::string>& raw) const;

  // The aggregated sensitive value of one vehicle's events of one epoch,
  // `payloads` in (ts, input order). Nullopt: no event carries the field
  // and no missing_value is configured (ineligible).
  std::optional<std::string> Sensitive(std::span<const std::string* const> payloads) const;

 private:
  std::optional<std::string> FieldOf(const std::string& payload) const;

  const engine::Schema& schema_;
  std::vector<config::QuasiIdentifier> qis_;
  std::vector<std::map<std::string, int32_t, std::less<>>> leaves_;  // per categorical QI
  config::SensitiveConfig sensitive_;
  std::vector<std::string> path_;  // of the sensitive field inside the payload
};

// Ids for sensitive values in order of first use, kept for the whole check
// so that a value means the same id in every release.
class ValueIds {
 public:
  engine::SensitiveId Intern(std::string_view value);
  const std::string& Value(engine::SensitiveId id) const { return values_[id]; }

 private:
  std::vector<std::string> values_;
  std::map<std::string, engine::SensitiveId, std::less<>> ids_;
};

}  // namespace vanon::e2e

#endif  // VANON_TESTS_E2E_TRUTH_VALUES_H_
