#include "output_audit.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "output_records.h"
#include "topic_reader.h"

namespace vanon::testing {

namespace {

std::string ShareKey(int64_t release, int32_t partition) {
  return std::to_string(release) + "/" + std::to_string(partition);
}

std::string AttemptOf(const TopicRecord& r) {
  auto it = r.headers.find("vanon.attempt");
  return it == r.headers.end() ? "" : it->second;
}

}  // namespace

std::string OutputAudit::Describe() const {
  std::ostringstream o;
  o << "shares " << shares << " (" << shares_repeated << " repeated, " << shares_differing << " differing), group ids "
    << "repeated " << group_ids_repeated << ", events " << events << " (" << events_repeated << " repeated, "
    << events_differing << " differing, " << events_without_seq << " without seq, " << events_without_group
    << " without a group record), vehicles " << vehicles << " (" << vehicles_two_signatures
    << " with two signatures), DP keys " << dp_keys << " (" << dp_repeated << " repeated, " << dp_differing
    << " differing)";
  return o.str();
}

OutputAudit AuditOutputs(const std::string& bootstrap, const std::map<uint64_t, std::string>& vin_of_seq,
                         bool read_uncommitted) {
  OutputAudit a;
  std::string error;
  std::map<std::string, std::set<std::string>> summaries;  // share -> distinct summary records
  std::map<std::string, int> summary_count;
  std::map<std::string, std::set<std::string>> sig_of_group;
  std::map<std::string, int> group_records;
  for (const TopicRecord& r : ReadTopic(bootstrap, "vehicle.releases", read_uncommitted)) {
    std::optional<e2e::ReleaseRecord> rec = e2e::ParseReleaseRecord(r.value, &error);
    if (!rec) throw std::runtime_error("vehicle.releases: " + error);
    if (rec->is_summary) {
      const std::string k = ShareKey(rec->summary.release, rec->summary.partition);
      summaries[k].insert(r.value);
      summary_count[k]++;
      a.attempts_of_share[k].insert(AttemptOf(r));
    } else {
      ++group_records[rec->group.group];
      sig_of_group[rec->group.group] = {rec->group.sensitive.begin(), rec->group.sensitive.end()};
    }
  }
  a.shares = summaries.size();
  for (const auto& [k, n] : summary_count) a.shares_repeated += n > 1;
  for (const auto& [k, values] : summaries) a.shares_differing += values.size() > 1;
  for (const auto& [g, n] : group_records) a.group_ids_repeated += n > 1;

  std::map<uint64_t, std::set<std::string>> records_of_seq;
  std::map<uint64_t, int> seq_count;
  std::map<std::string, std::set<std::set<std::string>>> sigs;  // VIN -> signatures
  for (const TopicRecord& r : ReadTopic(bootstrap, "vehicle.events.anonymized", read_uncommitted)) {
    std::optional<e2e::EventRecord> e = e2e::ParseEventRecord(r.value, &error);
    if (!e) throw std::runtime_error("vehicle.events.anonymized: " + error);
    auto vin = e->seq ? vin_of_seq.find(*e->seq) : vin_of_seq.end();
    if (vin == vin_of_seq.end()) {
      ++a.events_without_seq;
      continue;
    }
    records_of_seq[*e->seq].insert(r.value);
    seq_count[*e->seq]++;
    a.vins.insert(vin->second);
    auto g = sig_of_group.find(e->group);
    if (g == sig_of_group.end()) {
      ++a.events_without_group;  // an attempt that stopped before its group records
      continue;
    }
    sigs[vin->second].insert(g->second);
  }
  a.events = records_of_seq.size();
  for (const auto& [s, n] : seq_count) a.events_repeated += n > 1;
  for (const auto& [s, values] : records_of_seq) a.events_differing += values.size() > 1;
  a.vehicles = sigs.size();
  for (const auto& [vin, s] : sigs) a.vehicles_two_signatures += s.size() > 1;

  // DP records of one share, per attempt, as a sorted list: attempts of the
  // same release that drew the same noise publish the same list.
  std::map<std::string, std::map<std::string, std::vector<std::string>>> dp;  // key -> attempt -> records
  for (const TopicRecord& r : ReadTopic(bootstrap, "vehicle.counts.dp", read_uncommitted)) {
    dp[r.key][AttemptOf(r)].push_back(r.value);
  }
  a.dp_keys = dp.size();
  for (auto& [key, attempts] : dp) {
    if (attempts.size() < 2) continue;
    ++a.dp_repeated;
    std::set<std::vector<std::string>> distinct;
    for (auto& [attempt, values] : attempts) {
      std::sort(values.begin(), values.end());
      distinct.insert(values);
    }
    a.dp_differing += distinct.size() > 1;
  }
  return a;
}

}  // namespace vanon::testing
