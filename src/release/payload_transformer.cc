#include "vanon/release/payload_transformer.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <simdjson.h>

#include "base/decimal_text.h"
#include "base/json.h"

namespace vanon::release {

namespace {

// Mean Earth radius (IUGG), so a degree of latitude is ~111.2 km.
constexpr double kMetersPerDegree = 6371008.8 * std::numbers::pi / 180.0;

std::optional<double> Number(simdjson::dom::element v) {
  double d = 0;
  switch (v.type()) {
    case simdjson::dom::element_type::INT64:
      d = static_cast<double>(v.get_int64().value_unsafe());
      break;
    case simdjson::dom::element_type::UINT64:
      d = static_cast<double>(v.get_uint64().value_unsafe());
      break;
    case simdjson::dom::element_type::DOUBLE:
      d = v.get_double().value_unsafe();
      break;
    default:
      return std::nullopt;
  }
  if (!std::isfinite(d)) return std::nullopt;
  return d;
}

size_t Index(double x, double width, double count) {
  return static_cast<size_t>(std::clamp(std::floor(x / width), 0.0, count - 1));
}

}  // namespace

GridPoint GridCellCentre(double lat, double lon, double cell_meters) {
  const double rows = std::max(1.0, std::round(180.0 * kMetersPerDegree / cell_meters));
  const double dlat = 180.0 / rows;
  const double row = static_cast<double>(Index(lat + 90.0, dlat, rows));
  const double centre_lat = -90.0 + (row + 0.5) * dlat;
  const double row_meters = 360.0 * kMetersPerDegree * std::cos(centre_lat * std::numbers::pi / 180.0);
  const double cols = std::max(1.0, std::round(row_meters / cell_meters));
  const double dlon = 360.0 / cols;
  const double col = static_cast<double>(Index(lon + 180.0, dlon, cols));
  return {centre_lat, -180.0 + (col + 0.5) * dlon};
}

struct PayloadTransformer::Rep {
  simdjson::dom::parser parser;

  // Reused for every field of every event (millions per epoch): a path
  // string and a minified copy per field were two allocations each.
  std::string path;
  simdjson::internal::string_builder<> minified;

  void AppendMinified(simdjson::dom::element value, std::string* out) {
    minified.clear();
    minified.append(value);
    out->append(minified.str());
  }

  // The dotted path of a member of an object at `prefix_size` bytes of
  // `path`. A top-level member's path is its key: no copy.
  std::string_view FieldPath(size_t prefix_size, std::string_view key) {
    if (prefix_size == 0) return key;
    path.resize(prefix_size);
    path.push_back('.');
    path.append(key);
    return path;
  }

  // Appends `"key":value` pairs of `obj` (under the first prefix_size bytes
  // of `path`) to *out; returns how many were written. A field that will
  // not be written (dropped by its rule, or unlisted under default: drop)
  // is decided before its key is written: most fields of a dropping config
  // are such.
  size_t Object(PayloadTransformer& t, simdjson::dom::object obj, size_t prefix_size, std::string* out) {
    size_t written = 0;
    for (auto field : obj) {
      const std::string_view field_path = FieldPath(prefix_size, field.key);
      const auto rule = t.rules_.find(field_path);
      const bool listed = rule != t.rules_.end();
      if (listed && rule->second.transform == config::PayloadTransform::kDrop) continue;
      const bool parent = !listed && field.value.is_object() && t.parents_.count(field_path) > 0;
      if (!listed && !parent && !t.keep_unlisted_) continue;
      if (parent && prefix_size == 0) path.assign(field.key);  // the prefix of its members
      const size_t mark = out->size();
      if (written > 0) out->push_back(',');
      base::AppendJsonString(out, field.key);
      out->push_back(':');
      bool ok = true;
      if (listed) {
        ok = Apply(t, rule->second, field.value, out);
      } else if (parent) {
        out->push_back('{');
        const size_t inner = Object(t, field.value.get_object().value_unsafe(), path.size(), out);
        out->push_back('}');
        ok = inner > 0 || t.keep_unlisted_;
      } else {
        AppendMinified(field.value, out);
      }
      if (ok) {
        ++written;
      } else {
        out->resize(mark);
      }
    }
    return written;
  }

  bool Apply(PayloadTransformer& t, const config::PayloadField& rule, simdjson::dom::element value, std::string* out) {
    switch (rule.transform) {
      case config::PayloadTransform::kDrop:
        return false;
      case config::PayloadTransform::kKeep:
        AppendMinified(value, out);
        return true;
      case config::PayloadTransform::kBin: {
        const std::optional<double> v = Number(value);
        const double lo = v ? std::floor(*v / rule.width) * rule.width : 0;
        if (!v || !std::isfinite(lo)) break;
        // 15 digits hide the binary noise of floor(v/w)*w (0.30000000000000004).
        base::AppendGeneral15(out, lo == 0 ? 0.0 : lo);
        return true;
      }
      case config::PayloadTransform::kGpsGrid: {
        simdjson::dom::object obj;
        simdjson::dom::element lat_e, lon_e;
        if (value.get(obj) || obj["lat"].get(lat_e) || obj["lon"].get(lon_e)) break;
        const std::optional<double> lat = Number(lat_e);
        const std::optional<double> lon = Number(lon_e);
        if (!lat || !lon || *lat < -90 || *lat > 90 || *lon < -180 || *lon > 180) break;
        const GridPoint p = GridCellCentre(*lat, *lon, rule.cell_meters);
        out->append("{\"lat\":");
        base::AppendFixed6(out, p.lat);
        out->append(",\"lon\":");
        base::AppendFixed6(out, p.lon);
        out->push_back('}');
        return true;
      }
    }
    ++t.stats_.malformed_fields;
    return false;
  }
};

PayloadTransformer::PayloadTransformer(const config::PayloadConfig& config)
    : keep_unlisted_(config.default_action == config::PayloadDefault::kKeep),
      bucket_ms_(std::max<int64_t>(1, config.time_bucket_seconds) * 1000),
      rep_(std::make_unique<Rep>()) {
  for (const config::PayloadField& f : config.fields) {
    rules_[f.path] = f;
    for (size_t dot = f.path.find('.'); dot != std::string::npos; dot = f.path.find('.', dot + 1)) {
      parents_.insert(f.path.substr(0, dot));
    }
  }
}

PayloadTransformer::~PayloadTransformer() = default;

std::string PayloadTransformer::Transform(std::string_view payload_json) {
  std::string out;
  TransformInto(payload_json, &out);
  return out;
}

void PayloadTransformer::TransformInto(std::string_view payload_json, std::string* out) {
  simdjson::dom::element root;
  if (rep_->parser.parse(payload_json.data(), payload_json.size()).get(root) || !root.is_object()) {
    ++stats_.malformed_payloads;
    out->append("{}");
    return;
  }
  out->push_back('{');
  rep_->path.clear();
  rep_->Object(*this, root.get_object().value_unsafe(), 0, out);
  out->push_back('}');
}

void PayloadTransformer::Write(const simdjson::dom::object& payload, std::string* out) {
  out->push_back('{');
  rep_->path.clear();
  rep_->Object(*this, payload, 0, out);
  out->push_back('}');
}

int64_t PayloadTransformer::PublishedTime(int64_t ts_ms) const {
  int64_t q = ts_ms / bucket_ms_;
  if (ts_ms % bucket_ms_ < 0) --q;
  return q * bucket_ms_;
}

}  // namespace vanon::release
