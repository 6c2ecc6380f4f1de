#include "record_index.h"

#include <algorithm>

namespace vanon::e2e {

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && (a < 0) != (b < 0)) --q;
  return q;
}

void RecordIndex::IndexTruth(const config::Config& config, const std::vector<std::string>& late_messages,
                             std::vector<std::string>* violations) {
  const int64_t epoch_ms = config.privacy.epoch.length_seconds * 1000;
  seq.resize(truth.size());
  late.assign(truth.size(), false);
  for (size_t i = 0; i < truth.size(); ++i) {
    auto s = SeqOfPayload(truth[i].payload_json);
    if (!s) {
      violations->push_back("ground truth message " + std::to_string(i) + " has no payload.seq");
      continue;
    }
    seq[i] = *s;
    if (!by_seq.emplace(*s, i).second) violations->push_back("ground truth seq " + std::to_string(*s) + " repeats");
    ++truth_count[truth[i].partition];
  }
  for (const std::string& m : late_messages) {
    auto s = SeqOfMessage(m);
    auto it = s ? by_seq.find(*s) : by_seq.end();
    if (it == by_seq.end()) {
      violations->push_back("a late-topic record names no valid input message");
      continue;
    }
    if (late[it->second]) violations->push_back("input seq " + std::to_string(*s) + " is in the late topic twice");
    late[it->second] = true;
    ++late_count[truth[it->second].partition];
  }
  for (size_t i = 0; i < truth.size(); ++i) {
    if (late[i]) continue;
    const TruthMessage& t = truth[i];
    on_time[t.partition][FloorDiv(t.ts_ms, epoch_ms)][t.vin].push_back(i);
  }
  for (auto& [p, epochs] : on_time) {
    for (auto& [e, vehicles] : epochs) {
      for (auto& [vin, msgs] : vehicles) {
        std::sort(msgs.begin(), msgs.end(), [&](size_t a, size_t b) {
          return std::pair(truth[a].ts_ms, seq[a]) < std::pair(truth[b].ts_ms, seq[b]);
        });
      }
    }
  }
}

RecordIndex::RecordIndex(const config::Config& config, const std::vector<TruthMessage>& truth_in,
                         const std::vector<std::string>& late_messages, const std::vector<EventRecord>& events,
                         const std::vector<GroupRecord>& groups, std::vector<std::string>* violations)
    : truth(truth_in) {
  IndexTruth(config, late_messages, violations);
  auto bad = [&](const std::string& s) { violations->push_back(s); };
  const int64_t epoch_ms = config.privacy.epoch.length_seconds * 1000;
  const int64_t bucket_ms = config.payload.time_bucket_seconds * 1000;

  // Group records of each release, by group id.
  std::map<std::pair<int64_t, std::string>, size_t> owner;
  links.resize(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    groups_of[{groups[g].release, groups[g].partition}].push_back(g);
    if (!owner.emplace(std::pair(groups[g].release, groups[g].group), g).second) {
      bad("release " + std::to_string(groups[g].release) + ": group " + groups[g].group + " has two records");
    }
    if (groups[g].version != 2 || !groups[g].tuples.empty()) {
      bad("release " + std::to_string(groups[g].release) + ": group " + groups[g].group +
          " is a version-1 record, which links tuple tokens to values");
    }
  }

  // Events, each checked against its input and its group.
  std::map<std::pair<int64_t, std::string>, std::vector<size_t>> events_of;  // (release, token)
  std::map<std::pair<int64_t, std::string>, std::string> group_of_token;
  std::vector<std::set<std::string>> tokens_of(groups.size());
  std::map<uint64_t, int> published;
  for (size_t i = 0; i < events.size(); ++i) {
    const EventRecord& e = events[i];
    const std::string where = "release " + std::to_string(e.release) + ", token " + e.tuple + ": ";
    events_of[{e.release, e.tuple}].push_back(i);
    auto [mapped, fresh] = group_of_token.emplace(std::pair(e.release, e.tuple), e.group);
    if (!fresh && mapped->second != e.group) bad(where + "token used in two groups");
    auto own = owner.find({e.release, e.group});
    if (own == owner.end()) {
      bad(where + "event of a group no group record lists");
    } else {
      if (groups[own->second].qi != e.qi) bad(where + "event's labels differ from its group record");
      tokens_of[own->second].insert(e.tuple);
    }
    if (!e.seq) {
      bad(where + "event without payload.seq");
      continue;
    }
    auto it = by_seq.find(*e.seq);
    if (it == by_seq.end()) {
      bad(where + "event seq " + std::to_string(*e.seq) + " names no valid input");
      continue;
    }
    if (++published[*e.seq] == 2) bad("input seq " + std::to_string(*e.seq) + " published more than once");
    const TruthMessage& t = truth[it->second];
    if (late[it->second]) bad(where + "a late event was published");
    if (e.event != t.event) bad(where + "event name differs from the input's");
    if (e.ts != FloorDiv(t.ts_ms, bucket_ms) * bucket_ms) bad(where + "time is not the input's, bucketed");
    if (e.raw.find(t.vin) != std::string::npos) bad(where + "the record contains its VIN");
  }

  // Link every token of a group's events to the vehicle and epoch of its events.
  for (size_t g = 0; g < groups.size(); ++g) {
    const GroupRecord& gr = groups[g];
    for (const std::string& token : tokens_of[g]) {
      TokenLink link;
      link.token = token;
      link.events = events_of[{gr.release, token}];
      std::set<std::pair<std::string, int64_t>> origins;
      std::set<int32_t> partitions;
      for (size_t i : link.events) {
        auto it = events[i].seq ? by_seq.find(*events[i].seq) : by_seq.end();
        if (it == by_seq.end()) continue;
        const TruthMessage& m = truth[it->second];
        origins.emplace(m.vin, FloorDiv(m.ts_ms, epoch_ms));
        partitions.insert(m.partition);
      }
      const std::string where = "release " + std::to_string(gr.release) + ", token " + token + ": ";
      if (origins.size() != 1) {
        bad(where + "events come from " + std::to_string(origins.size()) + " (vehicle, epoch) pairs");
      } else if (*partitions.begin() != gr.partition) {
        bad(where + "events come from input partition " + std::to_string(*partitions.begin()) +
            ", the group record says " + std::to_string(gr.partition));
      } else {
        link.linked = true;
        link.vin = origins.begin()->first;
        link.epoch = origins.begin()->second;
        published_in[gr.partition][{link.vin, link.epoch}].push_back(gr.release);
      }
      links[g].push_back(std::move(link));
    }
  }
}

}  // namespace vanon::e2e
