#include "ground_truth.h"

#include <simdjson.h>

namespace vanon::e2e {

namespace {

std::optional<uint64_t> SeqOf(simdjson::dom::element payload) {
  uint64_t seq = 0;
  if (payload["seq"].get(seq) != simdjson::SUCCESS) return std::nullopt;
  return seq;
}

}  // namespace

bool InsertSeq(std::string* event_json, uint64_t seq) {
  // The generator writes the payload as "payload":{...}; its first member
  // is never "seq", so putting ours first keeps the object valid.
  static constexpr std::string_view kPayload = "\"payload\":{";
  const size_t at = event_json->find(kPayload);
  if (at == std::string::npos) return false;
  const size_t pos = at + kPayload.size();
  std::string member = "\"seq\":" + std::to_string(seq);
  if ((*event_json)[pos] != '}') member += ',';
  event_json->insert(pos, member);
  return true;
}

std::optional<uint64_t> SeqOfPayload(std::string_view payload_json) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(payload_json.data(), payload_json.size()).get(doc) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  return SeqOf(doc);
}

std::optional<uint64_t> SeqOfMessage(std::string_view message_json) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(message_json.data(), message_json.size()).get(doc) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  simdjson::dom::element payload;
  if (doc["payload"].get(payload) != simdjson::SUCCESS) return std::nullopt;
  return SeqOf(payload);
}

}  // namespace vanon::e2e
