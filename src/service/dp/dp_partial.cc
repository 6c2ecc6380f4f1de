#include "service/dp/dp_partial.h"

#include <sstream>

namespace vanon::service {

namespace {
constexpr const char* kMagic = "vdp-partial1";
constexpr const char* kMarkMagic = "vdp-global1";
}  // namespace

std::string EncodePartial(const DpPartial& p) {
  std::string out = std::string(kMagic) + " " + std::to_string(p.window) + " " + std::to_string(p.source) + " " +
                    std::to_string(p.partitions) + " " + std::to_string(p.cut);
  for (const std::vector<uint64_t>& m : p.counts) {
    out += '\n';
    for (size_t i = 0; i < m.size(); ++i) {
      if (i) out += ' ';
      out += std::to_string(m[i]);
    }
  }
  return out;
}

std::optional<DpPartial> DecodePartial(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::string line, magic;
  if (!std::getline(in, line)) return std::nullopt;
  DpPartial p;
  std::istringstream head(line);
  if (!(head >> magic >> p.window >> p.source >> p.partitions >> p.cut) || magic != kMagic) return std::nullopt;
  while (std::getline(in, line)) {
    std::istringstream cells(line);
    std::vector<uint64_t>& m = p.counts.emplace_back();
    uint64_t v;
    while (cells >> v) m.push_back(v);
    // Every measurement has at least one cell (ValidateQuery), so a blank
    // line is damage, not a measurement: taken as one, it would not encode
    // back (a trailing empty line is no line) and the partial's shape would
    // change on its way through the state.
    if (m.empty() || !cells.eof()) return std::nullopt;
  }
  return p;
}

std::string EncodeGlobalMark(const GlobalMark& m) {
  return std::string(kMarkMagic) + " " + std::to_string(m.window) + " " + std::to_string(m.aggregator) + " " +
         std::to_string(m.charge.release_id) + " " + std::to_string(m.charge.release_ts_ms) + " " +
         std::to_string(m.charge.epsilon_nanos) + " " + (m.complete ? "1" : "0");
}

std::optional<GlobalMark> DecodeGlobalMark(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::string magic;
  GlobalMark m;
  int complete = 0;
  if (!(in >> magic) || magic != kMarkMagic) return std::nullopt;
  if (!(in >> m.window >> m.aggregator >> m.charge.release_id >> m.charge.release_ts_ms >> m.charge.epsilon_nanos >>
        complete) ||
      (complete != 0 && complete != 1)) {
    return std::nullopt;
  }
  std::string rest;
  if (in >> rest) return std::nullopt;
  // The reader continues after the mark's window and records its charge in
  // its ledger: a window with no next one would overflow, and a negative
  // charge is no ledger entry (DecodeLedgerEntry refuses it too).
  if (m.window == INT64_MAX || m.charge.epsilon_nanos < 0) return std::nullopt;
  m.complete = complete == 1;
  return m;
}

bool AddPartial(const DpPartial& p, DpPartial* sum) {
  if (sum->counts.empty()) {
    const int64_t window = sum->window;
    *sum = p;
    sum->source = -1;
    sum->window = window;
    return true;
  }
  if (p.counts.size() != sum->counts.size()) return false;
  for (size_t m = 0; m < p.counts.size(); ++m) {
    if (p.counts[m].size() != sum->counts[m].size()) return false;
  }
  for (size_t m = 0; m < p.counts.size(); ++m) {
    for (size_t c = 0; c < p.counts[m].size(); ++c) sum->counts[m][c] += p.counts[m][c];
  }
  sum->cut += p.cut;
  return true;
}

std::string DpAggregateState::EncodeIndex() const {
  std::string out = std::to_string(next) + " " + std::to_string(offset);
  for (const auto& [window, from] : sources) {
    out += "\n" + std::to_string(window);
    for (int32_t s : from) out += " " + std::to_string(s);
  }
  return out;
}

bool DpAggregateState::DecodeIndex(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::string line;
  if (!std::getline(in, line)) return false;
  std::istringstream head(line);
  if (!(head >> next >> offset)) return false;
  while (std::getline(in, line)) {
    std::istringstream items(line);
    int64_t window;
    if (!(items >> window)) return false;
    std::set<int32_t>& from = sources[window];
    int32_t s;
    while (items >> s) from.insert(s);
  }
  return true;
}

}  // namespace vanon::service
