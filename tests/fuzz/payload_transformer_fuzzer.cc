// PayloadTransformer under two configs: the demo's (unlisted fields dropped,
// flat rules) and one that keeps unlisted fields and has nested rules of
// every transform. Input: a payload JSON text.
//
// Invariants: the output is one JSON object; transforming the text
// (Transform, the release path) and the already parsed object (Write, the
// ingest path) give the same bytes; no dropped field and no field the
// config does not publish appears; a binned value is a finite number; a
// gridded value is exactly {"lat", "lon"} within range.
#include <simdjson.h>

#include <cmath>
#include <optional>
#include <string>

#include "fuzz_support.h"
#include "fuzz_targets.h"
#include "vanon/config.h"
#include "vanon/release/payload_transformer.h"

namespace vanon::fuzz {

namespace {

config::PayloadConfig NestedKeepConfig() {
  config::PayloadConfig c;
  c.default_action = config::PayloadDefault::kKeep;
  using T = config::PayloadTransform;
  c.fields = {{"pos.gps", T::kGpsGrid, 0, 250}, {"pos.speed", T::kBin, 0.5, 0}, {"pos.secret", T::kDrop, 0, 0},
              {"a.b.c", T::kBin, 1000, 0},      {"artist", T::kDrop, 0, 0},     {"location", T::kGpsGrid, 0, 1e7},
              {"speed_kmh", T::kBin, 1e-3, 0},  {"source", T::kKeep, 0, 0}};
  return c;
}

struct Setup {
  config::PayloadConfig config;
  release::PayloadTransformer transformer{config};
  explicit Setup(config::PayloadConfig c) : config(std::move(c)), transformer(config) {}
};

const config::PayloadField* RuleOf(const config::PayloadConfig& c, const std::string& path) {
  for (const config::PayloadField& f : c.fields) {
    if (f.path == path) return &f;
  }
  return nullptr;
}

bool IsParentOfRule(const config::PayloadConfig& c, const std::string& path) {
  for (const config::PayloadField& f : c.fields) {
    if (f.path.size() > path.size() && f.path.compare(0, path.size(), path) == 0 && f.path[path.size()] == '.') {
      return true;
    }
  }
  return false;
}

double NumberOf(simdjson::dom::element v) {
  double d = 0;
  if (v.is_int64()) return static_cast<double>(v.get_int64().value_unsafe());
  if (v.is_uint64()) return static_cast<double>(v.get_uint64().value_unsafe());
  Check(!v.get_double().get(d), "a transformed value is not a number");
  return d;
}

void CheckGrid(simdjson::dom::element v) {
  simdjson::dom::object o;
  Check(!v.get_object().get(o) && o.size() == 2, "a gridded value is not {lat, lon}");
  simdjson::dom::element lat, lon;
  Check(!o["lat"].get(lat) && !o["lon"].get(lon), "a gridded value is not {lat, lon}");
  const double a = NumberOf(lat), b = NumberOf(lon);
  Check(a >= -90 && a <= 90 && b >= -180 && b <= 180, "a grid cell centre is out of range");
}

// Walks the output object: every field is published by a rule, is a parent
// of one, or is kept by default; values follow their rule.
void CheckObject(const config::PayloadConfig& c, simdjson::dom::object object, const std::string& prefix) {
  const bool keep = c.default_action == config::PayloadDefault::kKeep;
  for (auto field : object) {
    const std::string path = prefix.empty() ? std::string(field.key) : prefix + "." + std::string(field.key);
    const config::PayloadField* rule = RuleOf(c, path);
    if (rule == nullptr) {
      Check(keep || IsParentOfRule(c, path), "an unlisted field was published under default: drop");
      simdjson::dom::object inner;
      if (IsParentOfRule(c, path) && !field.value.get_object().get(inner)) CheckObject(c, inner, path);
      continue;
    }
    switch (rule->transform) {
      case config::PayloadTransform::kDrop:
        Fail("a dropped field was published");
      case config::PayloadTransform::kKeep:
        break;
      case config::PayloadTransform::kBin:
        Check(std::isfinite(NumberOf(field.value)), "a binned value is not finite");
        break;
      case config::PayloadTransform::kGpsGrid:
        CheckGrid(field.value);
        break;
    }
  }
}

void RunOne(Setup& s, simdjson::dom::parser& json, std::string_view input) {
  const std::string text = s.transformer.Transform(input);
  simdjson::dom::element root;
  simdjson::dom::object out;
  Check(!json.parse(simdjson::padded_string(text)).get(root) && !root.get_object().get(out),
        "the transformed payload is not a JSON object");
  CheckObject(s.config, out, "");

  simdjson::dom::element parsed;
  simdjson::dom::object object;
  if (json.parse(simdjson::padded_string(input)).get(parsed) || parsed.get_object().get(object)) return;
  std::string written;
  s.transformer.Write(object, &written);
  Check(written == text, "Write (ingest) and Transform (release) disagree");
}

}  // namespace

void FuzzPayloadTransformer(std::string_view input) {
  static Setup* demo = new Setup(config::LoadConfig(SourcePath("config/demo.yaml")).payload);
  static Setup* nested = new Setup(NestedKeepConfig());
  static simdjson::dom::parser* json = new simdjson::dom::parser();
  RunOne(*demo, *json, input);
  RunOne(*nested, *json, input);
}

}  // namespace vanon::fuzz
