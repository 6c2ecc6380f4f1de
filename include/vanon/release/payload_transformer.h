// PayloadTransformer coarsens an event's payload per PayloadConfig before it
// is published, and buckets the published time.
//
// Fields are addressed by dotted paths into the payload object. A listed
// field gets its transform; an unlisted one is kept (default: keep) or
// dropped (default: drop). Nested objects that contain a listed path are
// rebuilt around it, so {"pos": {"gps": ...}} stays nested.
//
// - bin:      a number v becomes the lower bound of its bin, floor(v/w)*w,
//             still a JSON number (printed with 15 significant digits), so
//             the field keeps its type for downstream consumers.
// - gps_grid: an object {"lat": .., "lon": ..} becomes the centre of its
//             cell in an equal-distance grid: rows of cell_meters in
//             latitude, each row cut into cells of cell_meters of longitude
//             at the row's central latitude (whole number of cells around
//             the globe). Other members of the object are dropped.
// A value a transform cannot read (not a number, lat/lon missing or out of
// range, non-finite result) is dropped and counted, never published raw.
//
// Coarsening fields does not make trajectories anonymous: a sequence of grid
// cells can still single out a vehicle (see docs/release.md).
#ifndef VANON_RELEASE_PAYLOAD_TRANSFORMER_H_
#define VANON_RELEASE_PAYLOAD_TRANSFORMER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "vanon/config.h"
#include "vanon/ingest/payload_sink.h"

namespace vanon::release {

struct PayloadStats {
  uint64_t malformed_fields = 0;    // dropped because a transform could not read them
  uint64_t malformed_payloads = 0;  // not a JSON object: published as {}
};

// Centre of the equal-distance grid cell holding (lat, lon); lat in
// [-90, 90], lon in [-180, 180], cell_meters > 0.
struct GridPoint {
  double lat;
  double lon;
};
GridPoint GridCellCentre(double lat, double lon, double cell_meters);

class PayloadTransformer : public ingest::PayloadSink {
 public:
  explicit PayloadTransformer(const config::PayloadConfig& config);
  ~PayloadTransformer() override;
  PayloadTransformer(const PayloadTransformer&) = delete;
  PayloadTransformer& operator=(const PayloadTransformer&) = delete;

  // A minified JSON object. Non-const: reuses one parser's buffers.
  std::string Transform(std::string_view payload_json);
  // The same, appended to *out (a release writes millions of these).
  void TransformInto(std::string_view payload_json, std::string* out);

  // The same from the payload object EventParser has already parsed, so
  // that ingestion parses each message once (EventParser::SetPayloadSink).
  void Write(const simdjson::dom::object& payload, std::string* out) override;

  // ts floored to time_bucket_seconds.
  int64_t PublishedTime(int64_t ts_ms) const;

  const PayloadStats& stats() const { return stats_; }

 private:
  struct Rep;
  bool keep_unlisted_;
  int64_t bucket_ms_;
  // Looked up once per payload field of every event: hashed, and by the
  // path being built without a copy.
  struct PathHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::unordered_map<std::string, config::PayloadField, PathHash, std::equal_to<>> rules_;
  std::unordered_set<std::string, PathHash, std::equal_to<>> parents_;  // proper prefixes of rule paths
  std::unique_ptr<Rep> rep_;
  PayloadStats stats_;
};

}  // namespace vanon::release

#endif  // VANON_RELEASE_PAYLOAD_TRANSFORMER_H_
