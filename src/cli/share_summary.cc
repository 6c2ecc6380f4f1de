#include "share_summary.h"

#include <simdjson.h>

#include <stdexcept>

namespace vanon::cli {

namespace {

template <typename T>
T Field(simdjson::dom::object o, std::string_view name) {
  T v{};
  if (o[name].get(v) != simdjson::SUCCESS) {
    throw std::invalid_argument("summary without a valid \"" + std::string(name) + "\"");
  }
  return v;
}

}  // namespace

std::optional<ShareSummary> ParseShareSummary(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::object o;
  if (parser.parse(padded).get(o) != simdjson::SUCCESS) throw std::invalid_argument("not a JSON object");
  std::string_view type;
  if (o["type"].get(type) != simdjson::SUCCESS) throw std::invalid_argument("record without a \"type\"");
  if (type != "summary") return std::nullopt;
  ShareSummary s;
  s.release = Field<int64_t>(o, "release");
  s.partition = static_cast<int32_t>(Field<uint64_t>(o, "partition"));
  s.partitions = static_cast<int32_t>(Field<uint64_t>(o, "partitions"));
  s.groups = Field<uint64_t>(o, "groups");
  s.tuples = Field<uint64_t>(o, "tuples");
  s.published = Field<uint64_t>(o, "published");
  s.counterfeits = Field<uint64_t>(o, "counterfeits");
  s.events = Field<uint64_t>(o, "events");
  for (auto [reason, count] : Field<simdjson::dom::object>(o, "suppressed")) {
    uint64_t n = 0;
    if (count.get(n) != simdjson::SUCCESS) {
      throw std::invalid_argument("summary with a bad suppressed." + std::string(reason));
    }
    s.suppressed += n;
  }
  return s;
}

}  // namespace vanon::cli
