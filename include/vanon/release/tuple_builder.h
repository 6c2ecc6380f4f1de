// TupleBuilder turns the buffered events of one partition and epoch into the
// engine's input: one tuple per vehicle.
//
// Per vehicle, events are taken in (ts_ms, position) order:
// - QIs come from its latest event (they are equal for all its events unless
//   the registry or decoding table changed mid-epoch); a numeric value is
//   coded exactly (NumericQiCode, with its decimals), never rounded or
//   clamped;
// - the sensitive value is aggregated over the events that carry the field:
//   `first`, `last`, or `mode` (ties go to the value whose first occurrence
//   is earliest); `registry` is a static value and is read like `last`.
//   With no such event the vehicle gets SensitiveConfig::missing_value, or is
//   ineligible when none is configured.
// A QI the decoding table or registry does not know ("*", kUnknownAttribute),
// and a numeric value with no exact code ("NO DATA", out of range, more
// decimals than the precision; counted in BuiltTuples::qi_at_root) become
// kUnknownQiCode: the vehicle is published, generalized to the root on that
// QI. An ineligible vehicle (missing sensitive value, or a categorical value
// outside the hierarchy) keeps its tuple with kIneligibleCode as first QI code,
// so that ComputeRelease suppresses and counts it ("ineligible") with every
// other suppression.
#ifndef VANON_RELEASE_TUPLE_BUILDER_H_
#define VANON_RELEASE_TUPLE_BUILDER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "vanon/config.h"
#include "vanon/engine/release.h"
#include "vanon/engine/schema.h"
#include "vanon/ingest/buffered_event.h"
#include "vanon/release/sensitive_dictionary.h"

namespace vanon::release {

enum class TupleProblem { kNone, kUnknownQi, kMissingSensitive };

struct BuiltTuples {
  // Sorted by vehicle key; Tuple::vehicle is the 32 raw bytes of the HMAC.
  std::vector<engine::Tuple> tuples;
  // Per tuple, positions of its events in the input range, in (ts, position)
  // order: the events to publish when the tuple is published.
  std::vector<std::vector<uint32_t>> events;
  // Per tuple, why it is ineligible (kNone when it is not).
  std::vector<TupleProblem> problems;
  // Numeric QI values put under the root for want of an exact code, one per
  // tuple and QI.
  uint64_t qi_at_root = 0;
};

class TupleBuilder {
 public:
  // `sensitive_extra` is BufferLayout::sensitive (-1: no sensitive attribute;
  // every tuple then gets the value "" so that only k-anonymity is useful).
  // Schema and dictionary must outlive the builder. Takes only the two
  // config sections it reads.
  TupleBuilder(const std::vector<config::QuasiIdentifier>& qis, const std::optional<config::SensitiveConfig>& sensitive,
               const engine::Schema& schema, int sensitive_extra, SensitiveDictionary* dictionary);

  // Decides a vehicle's value from its epoch's events per value (dictionary
  // ids, in order of first occurrence; empty when no event carried the
  // field) instead of the aggregator: the windowed mode and the carried
  // value, which need the vehicle's state (release_share.cc). nullopt makes
  // the vehicle ineligible, as a missing value does.
  using ValueChooser = std::function<std::optional<engine::SensitiveId>(std::string_view vehicle,
                                                                        const std::vector<engine::ValueCount>& counts)>;

  // Events with a wrong number of QI values make their vehicle ineligible.
  BuiltTuples Build(std::span<const ingest::BufferedEvent> events, const ValueChooser& choose = {}) const;

 private:
  std::vector<int32_t> EncodeQi(const ingest::QiValues& qi_values, uint64_t* at_root) const;
  std::optional<std::string> Aggregate(std::span<const ingest::BufferedEvent> events,
                                       const std::vector<uint32_t>& order) const;
  std::vector<engine::ValueCount> Count(std::span<const ingest::BufferedEvent> events,
                                        const std::vector<uint32_t>& order) const;

  const engine::Schema& schema_;
  std::vector<config::QuasiIdentifier> qis_;
  std::optional<config::SensitiveConfig> sensitive_;
  int sensitive_extra_;
  SensitiveDictionary* dictionary_;
};

}  // namespace vanon::release

#endif  // VANON_RELEASE_TUPLE_BUILDER_H_
