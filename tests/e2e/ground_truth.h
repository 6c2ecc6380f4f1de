// What the test knows about its input, independently of the service: every
// valid message it produced, with the vehicle behind it. The reconstructor
// compares the service's output against this, never against the service's
// own state.
#ifndef VANON_TESTS_E2E_GROUND_TRUTH_H_
#define VANON_TESTS_E2E_GROUND_TRUTH_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vanon::e2e {

struct TruthMessage {
  int32_t partition = 0;  // input partition the message was produced to
  std::string vin;
  int64_t ts_ms = 0;
  std::string event;
  // The raw payload object as produced; it carries a unique "seq" number,
  // which the test config keeps, so a published event names its input.
  std::string payload_json;
  // Raw QI values of the vehicle in config order ("*" when unknown).
  std::vector<std::string> qi;
  bool known = true;  // the VIN is in the decoding table
};

// Inserts "seq":<seq> as the first member of the "payload" object of an
// input event in the default format. False when there is no payload object.
bool InsertSeq(std::string* event_json, uint64_t seq);

// The "seq" member of a JSON object (a payload), or nullopt.
std::optional<uint64_t> SeqOfPayload(std::string_view payload_json);
// The "seq" member of the "payload" of a whole input message, or nullopt.
std::optional<uint64_t> SeqOfMessage(std::string_view message_json);

}  // namespace vanon::e2e

#endif  // VANON_TESTS_E2E_GROUND_TRUTH_H_
