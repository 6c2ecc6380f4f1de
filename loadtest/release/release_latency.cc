#include "release_latency.h"

#include <simdjson.h>

#include <algorithm>

namespace vanon::loadtest {

namespace {
LatencyStats Summarize(std::vector<double> v) {
  LatencyStats s;
  s.count = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.p50_s = v[v.size() / 2];
  s.max_s = v.back();
  return s;
}
}  // namespace

bool ReleaseLatency::Observe(std::string_view value, int64_t seen_wall_ms) {
  // Group records outnumber summaries by thousands; skip them unparsed.
  if (value.find("\"summary\"") == std::string_view::npos) return true;
  simdjson::ondemand::parser parser;
  simdjson::padded_string json(value);
  simdjson::ondemand::document doc;
  if (parser.iterate(json).get(doc)) return false;
  std::string_view type;
  int64_t release = 0, epoch_end = 0, partitions = 0;
  uint64_t events = 0;
  if (doc["type"].get_string().get(type) || type != "summary") return true;  // not a summary after all
  if (doc["release"].get_int64().get(release) || doc["epoch_end"].get_int64().get(epoch_end) ||
      doc["events"].get_uint64().get(events) || doc["partitions"].get_int64().get(partitions)) {
    return false;
  }
  std::lock_guard<std::mutex> l(mu_);
  by_release_[release].push_back({epoch_end, partitions, seen_wall_ms, events});
  return true;
}

LatencyStats ReleaseLatency::Shares(int64_t from_ms, int64_t to_ms) const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<double> v;
  for (const auto& [release, shares] : by_release_) {
    for (const Share& s : shares) {
      if (s.epoch_end_ms < from_ms || s.epoch_end_ms >= to_ms) continue;
      v.push_back(static_cast<double>(s.seen_wall_ms - s.epoch_end_ms - lateness_ms_) / 1000.0);
    }
  }
  return Summarize(std::move(v));
}

std::vector<std::pair<int64_t, double>> ReleaseLatency::CompleteSeries() const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<std::pair<int64_t, double>> out;
  for (const auto& [release, shares] : by_release_) {
    if (shares.empty() || static_cast<int64_t>(shares.size()) < shares.front().partitions) continue;
    const int64_t end = shares.front().epoch_end_ms;
    int64_t last = 0;
    for (const Share& s : shares) last = std::max(last, s.seen_wall_ms);
    out.emplace_back(end, static_cast<double>(last - end - lateness_ms_) / 1000.0);
  }
  return out;
}

LatencyStats ReleaseLatency::Complete(int64_t from_ms, int64_t to_ms) const {
  std::vector<double> v;
  for (const auto& [end, latency] : CompleteSeries()) {
    if (end >= from_ms && end < to_ms) v.push_back(latency);
  }
  return Summarize(std::move(v));
}

uint64_t ReleaseLatency::Events(int64_t from_ms, int64_t to_ms) const {
  std::lock_guard<std::mutex> l(mu_);
  uint64_t n = 0;
  for (const auto& [release, shares] : by_release_) {
    for (const Share& s : shares) {
      if (s.epoch_end_ms >= from_ms && s.epoch_end_ms < to_ms) n += s.events;
    }
  }
  return n;
}

size_t ReleaseLatency::summaries() const {
  std::lock_guard<std::mutex> l(mu_);
  size_t n = 0;
  for (const auto& [release, shares] : by_release_) n += shares.size();
  return n;
}

}  // namespace vanon::loadtest
