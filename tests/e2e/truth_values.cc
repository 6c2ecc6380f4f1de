#include "truth_values.h"

#include <simdjson.h>

#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "vanon/release/schema_from_config.h"

namespace vanon::e2e {

namespace {

std::vector<std::string> SplitPath(std::string_view path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    const size_t dot = path.find('.', start);
    const size_t end = dot == std::string_view::npos ? path.size() : dot;
    parts.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

}  // namespace

TruthValues::TruthValues(const config::Config& config, const engine::Schema& schema)
    : schema_(schema), qis_(config.quasi_identifiers) {
  if (!config.sensitive) throw std::invalid_argument("the end-to-end check needs a sensitive attribute");
  sensitive_ = *config.sensitive;
  if (sensitive_.aggregator == config::SensitiveAggregator::kRegistry) {
    throw std::invalid_argument("the registry aggregator is not modelled");
  }
  const std::string_view field = sensitive_.field;
  if (field.substr(0, 8) != "payload.") throw std::invalid_argument("sensitive field must be in the payload");
  path_ = SplitPath(field.substr(8));
  leaves_.resize(schema.size());
  for (size_t a = 0; a < schema.size(); ++a) {
    if (!schema.attribute(a).IsCategorical()) continue;
    const engine::CategoricalHierarchy& h = *schema.attribute(a).hierarchy;
    for (int32_t leaf = 0; leaf < h.LeafCount(); ++leaf) leaves_[a][h.Name(h.LeafNode(leaf))] = leaf;
  }
}

std::optional<std::vector<int32_t>> TruthValues::EncodeQi(const std::vector<std::string>& raw) const {
  if (raw.size() != schema_.size()) return std::nullopt;
  std::vector<int32_t> codes;
  for (size_t a = 0; a < raw.size(); ++a) {
    if (raw[a] == "*") {  // unknown to the VIN table: published under the root
      codes.push_back(engine::kUnknownQiCode);
      continue;
    }
    if (schema_.attribute(a).IsCategorical()) {
      auto it = leaves_[a].find(raw[a]);
      if (it == leaves_[a].end()) return std::nullopt;
      codes.push_back(it->second);
      continue;
    }
    // No exact code (not a number, out of range, too many decimals): the root.
    codes.push_back(
        release::NumericQiCode(qis_[a], schema_.attribute(a).numeric, raw[a]).value_or(engine::kUnknownQiCode));
  }
  return codes;
}

std::optional<std::string> TruthValues::FieldOf(const std::string& payload) const {
  simdjson::dom::parser parser;
  simdjson::dom::element e;
  if (parser.parse(payload).get(e) != simdjson::SUCCESS) return std::nullopt;
  for (const std::string& key : path_) {
    if (e.at_key(key).get(e) != simdjson::SUCCESS) return std::nullopt;
  }
  if (e.is_null()) return std::nullopt;
  std::string_view s;
  if (e.get(s) == simdjson::SUCCESS) return std::string(s);
  return simdjson::minify(e);
}

std::optional<std::string> TruthValues::Sensitive(std::span<const std::string* const> payloads) const {
  std::vector<std::string> values;
  for (const std::string* p : payloads) {
    if (auto v = FieldOf(*p)) values.push_back(std::move(*v));
  }
  if (values.empty()) return sensitive_.missing_value;
  switch (sensitive_.aggregator) {
    case config::SensitiveAggregator::kFirst:
      return values.front();
    case config::SensitiveAggregator::kLast:
    case config::SensitiveAggregator::kRegistry:
      return values.back();
    case config::SensitiveAggregator::kMode:
      break;
  }
  // Most frequent; among equals the one seen first, hence the strict '>'
  // over values in order of first occurrence.
  std::map<std::string_view, size_t> count;
  for (const std::string& v : values) ++count[v];
  const std::string* best = &values.front();
  for (const std::string& v : values) {
    if (count[v] > count[*best]) best = &v;
  }
  return *best;
}

engine::SensitiveId ValueIds::Intern(std::string_view value) {
  auto it = ids_.find(value);
  if (it != ids_.end()) return it->second;
  const auto id = static_cast<engine::SensitiveId>(values_.size());
  values_.emplace_back(value);
  ids_.emplace(std::string(value), id);
  return id;
}

}  // namespace vanon::e2e
