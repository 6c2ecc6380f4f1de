#include "vanon/ingest/buffered_event.h"

#include <algorithm>

#include "base/coding.h"

namespace vanon::ingest {

void EncodeBufferedEvent(const BufferedEvent& event, std::string* dst) {
  dst->push_back(static_cast<char>(kBufferedEventVersion));
  dst->append(reinterpret_cast<const char*>(event.vehicle_key.data()), event.vehicle_key.size());
  dst->append(reinterpret_cast<const char*>(event.trip_key.data()), event.trip_key.size());
  base::PutFixed64(dst, static_cast<std::uint64_t>(event.ts_ms));
  base::PutLengthPrefixed(dst, event.event);
  base::PutVarint64(dst, event.qi_values.size());
  for (const std::string& qi : event.qi_values) base::PutLengthPrefixed(dst, qi);
  base::PutVarint64(dst, event.extras.size());
  for (const std::optional<std::string>& extra : event.extras) {
    dst->push_back(extra ? 1 : 0);
    if (extra) base::PutLengthPrefixed(dst, *extra);
  }
  base::PutLengthPrefixed(dst, event.payload_json);
}

namespace {

bool GetToken(std::string_view* in, HmacToken* token) {
  if (in->size() < token->size()) return false;
  std::copy_n(in->data(), token->size(), reinterpret_cast<char*>(token->data()));
  in->remove_prefix(token->size());
  return true;
}

bool GetString(std::string_view* in, std::string* out) {
  std::string_view s;
  if (!base::GetLengthPrefixed(in, &s)) return false;
  out->assign(s);
  return true;
}

// Every element takes at least one byte, so a count above the remaining
// size is corrupt; checking first keeps a forged count from allocating.
bool GetCount(std::string_view* in, std::uint64_t* n) { return base::GetVarint64(in, n) && *n <= in->size(); }

}  // namespace

bool DecodeBufferedEvent(std::string_view in, BufferedEvent* event, std::uint8_t* version) {
  if (in.empty()) return false;
  const auto v = static_cast<std::uint8_t>(in[0]);
  if (v != kBufferedEventVersion && v != kBufferedEventRawPayloadVersion) return false;
  if (version != nullptr) *version = v;
  in.remove_prefix(1);
  std::uint64_t ts, n;
  if (!GetToken(&in, &event->vehicle_key) || !GetToken(&in, &event->trip_key) || !base::GetFixed64(&in, &ts) ||
      !GetString(&in, &event->event)) {
    return false;
  }
  event->ts_ms = static_cast<std::int64_t>(ts);

  if (!GetCount(&in, &n)) return false;
  std::vector<std::string> qi(n);
  for (std::string& value : qi) {
    if (!GetString(&in, &value)) return false;
  }
  event->qi_values = std::move(qi);

  if (!GetCount(&in, &n)) return false;
  event->extras.resize(n);
  for (std::optional<std::string>& extra : event->extras) {
    if (in.empty()) return false;
    const char present = in[0];
    in.remove_prefix(1);
    if (present == 0) {
      extra.reset();
    } else if (present == 1) {
      if (!extra) extra.emplace();
      if (!GetString(&in, &*extra)) return false;
    } else {
      return false;
    }
  }

  return GetString(&in, &event->payload_json) && in.empty();
}

}  // namespace vanon::ingest
