#include "disclosure_attack.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "label_cover.h"

namespace vanon::e2e {

namespace {

// Whether a published label can stand for a vehicle with QI code `code`.
// An unknown VIN's QIs take the root, so only a root label covers it.
bool Covers(const engine::Schema& schema, size_t a, const std::string& label, int32_t code) {
  const engine::QiAttribute& attr = schema.attribute(a);
  if (code == engine::kUnknownQiCode) {
    const auto cover = CoverOfLabel(attr, label, {});
    return cover && *cover == schema.RootCover(a);
  }
  const int32_t one[1] = {code};
  const auto cover = CoverOfLabel(attr, label, one);
  return cover && cover->lo <= code && code <= cover->hi;
}

}  // namespace

std::set<std::string> MemberCandidates(const GroupRecord& group, const std::set<std::string>& tokens_with_events) {
  std::set<std::string> out;
  if (group.tuples.empty()) {
    out.insert(group.sensitive.begin(), group.sensitive.end());
    return out;
  }
  for (const GroupTuple& t : group.tuples) {
    if (t.sensitive && tokens_with_events.count(t.token)) out.insert(*t.sensitive);
  }
  return out;
}

AttackReport RunDisclosureAttack(const engine::Schema& schema, const std::vector<EventRecord>& events,
                                 const std::vector<GroupRecord>& groups, std::span<const Target> targets, size_t m) {
  std::map<std::pair<int64_t, std::string>, std::set<std::string>> tokens;  // (release, group) -> tokens
  for (const EventRecord& e : events) tokens[{e.release, e.group}].insert(e.tuple);
  struct Share {
    std::vector<const GroupRecord*> groups;
    std::vector<std::set<std::string>> candidates;
  };
  std::map<std::pair<int64_t, int32_t>, Share> shares;  // (release, partition)
  const std::set<std::string> none;
  for (const GroupRecord& g : groups) {
    Share& s = shares[{g.release, g.partition}];
    auto t = tokens.find({g.release, g.group});
    s.groups.push_back(&g);
    s.candidates.push_back(MemberCandidates(g, t == tokens.end() ? none : t->second));
  }

  AttackReport report;
  std::map<std::string, std::set<std::string>> intersected;
  std::set<std::string> disclosed_vehicles;
  report.min_candidates = targets.empty() ? 0 : SIZE_MAX;
  for (const Target& target : targets) {
    std::set<std::string> candidates;
    auto share = shares.find({target.release, target.partition});
    if (share != shares.end()) {
      for (size_t i = 0; i < share->second.groups.size(); ++i) {
        const GroupRecord& g = *share->second.groups[i];
        bool covers = true;
        for (size_t a = 0; a < schema.size() && covers; ++a) {
          auto label = g.qi.find(schema.attribute(a).name);
          covers = label != g.qi.end() && Covers(schema, a, label->second, target.qi[a]);
        }
        if (covers) candidates.insert(share->second.candidates[i].begin(), share->second.candidates[i].end());
      }
    }
    ++report.targets;
    if (candidates.size() == 1) {
      ++report.disclosed;
      disclosed_vehicles.insert(target.vehicle);
    }
    report.min_candidates = std::min(report.min_candidates, candidates.size());
    if (candidates.size() < m) {
      ++report.below_m;
      if (report.examples.size() < 5) {
        report.examples.push_back("release " + std::to_string(target.release) + ", partition " +
                                  std::to_string(target.partition) + ": " + std::to_string(candidates.size()) +
                                  " candidate values");
      }
    }
    auto [it, first] = intersected.emplace(target.vehicle, candidates);
    if (!first) {
      std::set<std::string> both;
      std::set_intersection(it->second.begin(), it->second.end(), candidates.begin(), candidates.end(),
                            std::inserter(both, both.end()));
      it->second = std::move(both);
    }
  }
  report.vehicles = intersected.size();
  report.vehicles_disclosed = disclosed_vehicles.size();
  for (const auto& [vehicle, c] : intersected) report.vehicles_below_m += c.size() < m;
  return report;
}

}  // namespace vanon::e2e
