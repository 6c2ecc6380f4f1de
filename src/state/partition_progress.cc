#include "vanon/state/partition_progress.h"

#include <charconv>

namespace vanon::state {

// Text "key=value;" pairs: tiny, written once per batch, readable with
// ldb when debugging, and new reasons need no format version.
std::string PartitionProgress::Encode() const {
  std::string out = "v1;next=" + std::to_string(next_offset) + ";consumed=" + std::to_string(consumed) +
                    ";accepted=" + std::to_string(accepted) + ";unknown_vin=" + std::to_string(unknown_vin) +
                    ";late=" + std::to_string(late) + ";released=" + std::to_string(released) +
                    ";suppressed=" + std::to_string(suppressed) + ";releases=" + std::to_string(releases) + ";";
  for (const auto& [reason, n] : rejected) out += "rej." + reason + "=" + std::to_string(n) + ";";
  if (replay_until >= 0) out += "replay_until=" + std::to_string(replay_until) + ";";
  return out;
}

uint64_t PartitionProgress::rejected_total() const {
  uint64_t t = 0;
  for (const auto& kv : rejected) t += kv.second;
  return t;
}

std::optional<PartitionProgress> PartitionProgress::Decode(std::string_view s) {
  if (s.substr(0, 3) != "v1;") return std::nullopt;
  s.remove_prefix(3);
  PartitionProgress p;
  while (!s.empty()) {
    size_t semi = s.find(';');
    size_t eq = s.find('=');
    if (semi == std::string_view::npos || eq == std::string_view::npos || eq > semi) return std::nullopt;
    std::string_view key = s.substr(0, eq);
    std::string_view val = s.substr(eq + 1, semi - eq - 1);
    int64_t n = 0;
    auto r = std::from_chars(val.data(), val.data() + val.size(), n);
    if (r.ec != std::errc() || r.ptr != val.data() + val.size()) return std::nullopt;
    if (key == "next") {
      p.next_offset = n;
    } else if (key == "replay_until") {
      p.replay_until = n;
    } else if (n < 0) {
      return std::nullopt;
    } else if (key == "consumed") {
      p.consumed = static_cast<uint64_t>(n);
    } else if (key == "accepted") {
      p.accepted = static_cast<uint64_t>(n);
    } else if (key == "unknown_vin") {
      p.unknown_vin = static_cast<uint64_t>(n);
    } else if (key == "late") {
      p.late = static_cast<uint64_t>(n);
    } else if (key == "released") {
      p.released = static_cast<uint64_t>(n);
    } else if (key == "suppressed") {
      p.suppressed = static_cast<uint64_t>(n);
    } else if (key == "releases") {
      p.releases = static_cast<uint64_t>(n);
    } else if (key.substr(0, 4) == "rej.") {
      p.rejected[std::string(key.substr(4))] = static_cast<uint64_t>(n);
    }  // unknown keys from newer versions are ignored
    s.remove_prefix(semi + 1);
  }
  return p;
}

}  // namespace vanon::state
