#include "release_reconstructor.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <set>

#include "label_cover.h"
#include "record_index.h"
#include "truth_values.h"
#include "vanon/release/schema_from_config.h"
#include "vanon/engine/checker.h"

namespace vanon::e2e {

namespace {

// QI code of a tuple that cannot be placed; no schema domain holds it.
constexpr int32_t kNoCode = std::numeric_limits<int32_t>::min();

// What the replay knows about each tuple of a release, parallel to the
// engine's refs (input.tuples ++ input.waiting).
struct TupleInfo {
  std::string vin;
  int64_t epoch = 0;             // of its events = its first release
  std::vector<size_t> messages;  // truth messages
  bool ineligible = false;
  std::string value;  // its sensitive value
};

struct Carried {
  engine::WaitingTuple tuple;
  TupleInfo info;
};

}  // namespace

ReleaseReconstructor::ReleaseReconstructor(const config::Config& config, const engine::Schema& schema,
                                           int32_t partitions)
    : config_(config), schema_(schema), partitions_(partitions) {}

void ReleaseReconstructor::AddTruth(TruthMessage message) { truth_.push_back(std::move(message)); }

void ReleaseReconstructor::AddLateMessage(std::string_view message_json) { late_messages_.emplace_back(message_json); }

void ReleaseReconstructor::AddEventRecord(std::string_view json) {
  std::string error;
  if (auto e = ParseEventRecord(json, &error)) {
    events_.push_back(std::move(*e));
  } else {
    parse_errors_.push_back("unreadable anonymized event (" + error + ")");
  }
}

void ReleaseReconstructor::AddReleaseRecord(std::string_view json) {
  std::string error;
  auto r = ParseReleaseRecord(json, &error);
  if (!r) {
    parse_errors_.push_back("unreadable release record (" + error + ")");
  } else if (r->is_summary) {
    summaries_.push_back(std::move(r->summary));
  } else {
    groups_.push_back(std::move(r->group));
  }
}

// One pass over the releases of one partition at a time.
class ReleaseReconstructor::Run {
 public:
  Run(const ReleaseReconstructor& r, E2eReport* report)
      : r_(r),
        report_(report),
        values_(r.config_, r.schema_),
        index_(r.config_, r.truth_, r.late_messages_, r.events_, r.groups_, &report->violations),
        params_(release::ReleaseParamsFromConfig(r.config_.privacy)) {
    for (size_t i = 0; i < r.summaries_.size(); ++i) {
      summaries_of_[{r.summaries_[i].partition, r.summaries_[i].release}].push_back(i);
    }
  }

  void Partition(int32_t p);

 private:
  void Bad(int32_t p, const std::string& what) {
    report_->violations.push_back("partition " + std::to_string(p) + ": " + what);
  }
  TupleInfo Current(const std::string& vin, int64_t epoch, const std::vector<size_t>& messages, engine::Tuple* t);
  void Release(int32_t p, int64_t e, PartitionAccount* account);

  const ReleaseReconstructor& r_;
  E2eReport* report_;
  TruthValues values_;
  RecordIndex index_;
  engine::ReleaseParams params_;
  ValueIds ids_;
  std::map<std::pair<int32_t, int64_t>, std::vector<size_t>> summaries_of_;

  // Per-partition state carried from one release to the next.
  std::unique_ptr<engine::ReleaseChecker> checker_;
  std::map<std::string, engine::Signature, std::less<>> known_;
  std::vector<Carried> waiting_;
};

TupleInfo ReleaseReconstructor::Run::Current(const std::string& vin, int64_t epoch, const std::vector<size_t>& messages,
                                             engine::Tuple* t) {
  TupleInfo info{vin, epoch, messages, false, ""};
  t->vehicle = vin;
  t->events = static_cast<uint32_t>(messages.size());
  // QIs of the latest event, as a vehicle's QIs may only change between events.
  auto qi = values_.EncodeQi(index_.truth[messages.back()].qi);
  std::vector<const std::string*> payloads;
  for (size_t m : messages) payloads.push_back(&index_.truth[m].payload_json);
  auto value = values_.Sensitive(payloads);
  info.ineligible = !qi || !value;
  t->qi = qi ? *qi : std::vector<int32_t>(r_.schema_.size(), kNoCode);
  info.value = value.value_or("");
  t->sensitive = ids_.Intern(info.value);
  return info;
}

void ReleaseReconstructor::Run::Partition(int32_t p) {
  PartitionAccount& account = report_->partitions[p];
  account.truth_events = index_.truth_count[p];
  account.late_events = index_.late_count[p];
  checker_ = std::make_unique<engine::ReleaseChecker>(r_.schema_);
  known_.clear();
  waiting_.clear();

  std::set<int64_t> releases;
  for (const auto& [key, list] : summaries_of_) {
    if (key.first == p) releases.insert(key.second);
  }
  for (const auto& [key, list] : index_.groups_of) {
    if (key.second == p) releases.insert(key.first);
  }
  const auto& epochs = index_.on_time[p];
  auto events_in = [&](int64_t e) {
    uint64_t n = 0;
    auto it = epochs.find(e);
    if (it != epochs.end()) {
      for (const auto& [vin, msgs] : it->second) n += msgs.size();
    }
    return n;
  };
  if (releases.empty()) {
    for (const auto& [e, vehicles] : epochs) account.unreleased_events += events_in(e);
    return;
  }
  const int64_t first = *releases.begin(), last = *releases.rbegin();
  if (static_cast<int64_t>(releases.size()) != last - first + 1) {
    Bad(p, "releases " + std::to_string(first) + ".." + std::to_string(last) + " have gaps");
  }
  for (const auto& [e, vehicles] : epochs) {
    if (e > last) {
      account.unreleased_events += events_in(e);
    } else if (!releases.count(e)) {
      Bad(p, std::to_string(events_in(e)) + " on-time events of epoch " + std::to_string(e) + " are in no release");
      account.unreleased_events += events_in(e);
    }
  }
  for (int64_t e : releases) Release(p, e, &account);
  for (const Carried& c : waiting_) account.waiting_events += c.info.messages.size();

  const uint64_t placed = account.published_events + account.suppressed_events + account.waiting_events +
                          account.unreleased_events + account.late_events;
  if (placed != account.truth_events) {
    Bad(p, "accounting: published " + std::to_string(account.published_events) + " + suppressed " +
               std::to_string(account.suppressed_events) + " + waiting " + std::to_string(account.waiting_events) +
               " + unreleased " + std::to_string(account.unreleased_events) + " + late " +
               std::to_string(account.late_events) + " != " + std::to_string(account.truth_events) +
               " valid input events");
  }
  if (account.summary_events != account.published_events) {
    Bad(p, "summaries count " + std::to_string(account.summary_events) + " events, the topic holds " +
               std::to_string(account.published_events));
  }
}

void ReleaseReconstructor::Run::Release(int32_t p, int64_t e, PartitionAccount* account) {
  const std::string at = "release " + std::to_string(e) + ": ";
  engine::ReleaseInput in;
  in.release_id = static_cast<uint64_t>(e);
  in.params = params_;
  in.known_signatures = known_;
  std::vector<TupleInfo> info;
  auto epoch = index_.on_time[p].find(e);
  if (epoch != index_.on_time[p].end()) {
    for (const auto& [vin, msgs] : epoch->second) {
      engine::Tuple t;
      info.push_back(Current(vin, e, msgs, &t));
      in.tuples.push_back(std::move(t));
    }
  }
  const size_t current = in.tuples.size();
  std::set<std::string> has_current;
  for (const TupleInfo& t : info) has_current.insert(t.vin);
  for (const Carried& c : waiting_) {
    in.waiting.push_back(c.tuple);
    info.push_back(c.info);
  }
  std::map<std::pair<std::string, int64_t>, engine::TupleRef> ref_of;
  for (size_t i = 0; i < info.size(); ++i) ref_of[{info[i].vin, info[i].epoch}] = static_cast<engine::TupleRef>(i);

  // Groups, as the records show them.
  engine::ReleaseOutput out;
  std::vector<bool> published(info.size(), false);
  uint64_t tokens = 0, eventless = 0, events = 0;
  auto groups = index_.groups_of.find({e, p});
  const std::vector<size_t> no_groups;
  for (size_t g : groups == index_.groups_of.end() ? no_groups : groups->second) {
    const GroupRecord& gr = r_.groups_[g];
    const std::string where = at + "group " + gr.group + ": ";
    engine::Group group;
    // The listed values, which must be distinct; each real tuple takes its
    // own value out, and what is left is the counterfeits'.
    std::multiset<engine::SensitiveId> left;
    std::set<engine::SensitiveId> listed;
    for (const std::string& v : gr.sensitive) {
      const engine::SensitiveId id = ids_.Intern(v);
      if (!listed.insert(id).second) Bad(p, where + "lists value '" + v + "' twice");
      left.insert(id);
    }
    if (gr.sensitive.size() != gr.size) {
      Bad(p, where + "has size " + std::to_string(gr.size) + " but lists " + std::to_string(gr.sensitive.size()) +
                 " values");
    }
    tokens += gr.size;
    for (const TokenLink& link : index_.links[g]) {
      events += link.events.size();
      if (!link.linked) continue;  // reported by the index
      auto ref = ref_of.find({link.vin, link.epoch});
      if (ref == ref_of.end()) {
        Bad(p, where + "token " + link.token + " publishes a tuple of epoch " + std::to_string(link.epoch) +
                   " that is neither current nor waiting");
        continue;
      }
      const TupleInfo& t = info[ref->second];
      auto own = left.find(ids_.Intern(t.value));
      if (own == left.end()) {
        Bad(p,
            where + "token " + link.token + ": its vehicle's value '" + t.value + "' is not among the group's values");
      } else {
        left.erase(own);
      }
      std::multiset<uint64_t> want, got;
      for (size_t m : t.messages) want.insert(index_.seq[m]);
      for (size_t i : link.events) got.insert(r_.events_[i].seq.value_or(0));
      if (want != got) {
        Bad(p, where + "token " + link.token + " publishes " + std::to_string(got.size()) + " events, its tuple has " +
                   std::to_string(want.size()));
      }
      group.members.push_back(ref->second);
      published[ref->second] = true;
      account->published_from_waiting += ref->second >= current;
    }
    const uint64_t group_eventless = gr.size - std::min<uint64_t>(gr.size, index_.links[g].size());
    group.counterfeits.assign(left.begin(), left.end());
    eventless += group_eventless;
    if (group_eventless != gr.counterfeits) {
      Bad(p, where + "says " + std::to_string(gr.counterfeits) + " counterfeits, " + std::to_string(group_eventless) +
                 " of its tuples have no event");
    }
    std::sort(group.members.begin(), group.members.end());
    for (engine::TupleRef m : group.members) {
      const engine::Tuple& t = m < current ? in.tuples[m] : in.waiting[m - current].tuple;
      if (std::find(t.qi.begin(), t.qi.end(), engine::kUnknownQiCode) != t.qi.end())
        ++report_->partitions[p].published_unknown_qi;
    }
    group.signature.assign(listed.begin(), listed.end());
    for (size_t a = 0; a < r_.schema_.size(); ++a) {
      const engine::QiAttribute& attr = r_.schema_.attribute(a);
      std::vector<int32_t> codes;
      for (engine::TupleRef m : group.members) {
        const engine::Tuple& t = m < current ? in.tuples[m] : in.waiting[m - current].tuple;
        codes.push_back(t.qi[a]);
      }
      auto label = gr.qi.find(attr.name);
      auto cover = label == gr.qi.end() ? std::nullopt : CoverOfLabel(attr, label->second, codes);
      if (!cover) Bad(p, where + "no readable label for '" + attr.name + "'");
      group.qi.push_back(cover.value_or(engine::Cover{1, 0}));  // an empty cover fails the checker
    }
    for (engine::TupleRef m : group.members) {
      if (!known_.count(info[m].vin)) out.new_signatures.emplace_back(info[m].vin, group.signature);
    }
    out.groups.push_back(std::move(group));
  }

  // Every tuple the records do not show: the one reason the engine must
  // have had, or still waiting.
  const bool minv = params_.model == engine::Model::kMInvariance;
  for (size_t i = 0; i < info.size(); ++i) {
    if (published[i]) continue;
    const TupleInfo& t = info[i];
    const auto ref = static_cast<engine::TupleRef>(i);
    bool newer_waiting = false;
    for (size_t j = current; j < info.size(); ++j) newer_waiting |= info[j].vin == t.vin && info[j].epoch > t.epoch;
    auto sig = known_.find(t.vin);
    const engine::SensitiveId value = ids_.Intern(t.value);
    auto later = index_.published_in[p].find({t.vin, t.epoch});
    const bool published_later =
        later != index_.published_in[p].end() &&
        std::any_of(later->second.begin(), later->second.end(), [&](int64_t r) { return r > e; });
    std::optional<engine::SuppressReason> reason;
    if (t.ineligible) {
      reason = engine::SuppressReason::kIneligible;
    } else if (i >= current && (has_current.count(t.vin) || newer_waiting)) {
      reason = engine::SuppressReason::kDelay;  // superseded by a newer tuple
    } else if (minv && sig != known_.end() && !std::binary_search(sig->second.begin(), sig->second.end(), value)) {
      reason = engine::SuppressReason::kSignatureConflict;
    } else if (!published_later && e - t.epoch >= static_cast<int64_t>(params_.max_delay)) {
      reason = engine::SuppressReason::kDelay;
    }
    if (reason) {
      out.suppressed.push_back({ref, *reason});
      account->suppressed_events += t.messages.size();
      ++account->suppressed_tuples[static_cast<size_t>(*reason)];
    } else {
      out.waiting.push_back({ref, static_cast<uint64_t>(t.epoch)});
    }
  }

  // The summary: its counts must be what the records show; its metrics go
  // to the checker, which compares them with what it derives.
  auto sums = summaries_of_.find({p, e});
  const size_t n_summaries = sums == summaries_of_.end() ? 0 : sums->second.size();
  if (n_summaries != 1) Bad(p, at + std::to_string(n_summaries) + " summary records");
  const uint64_t n_groups = groups == index_.groups_of.end() ? 0 : groups->second.size();
  if (n_summaries > 0) {
    const SummaryRecord& s = r_.summaries_[sums->second.front()];
    auto expect = [&](const char* what, uint64_t said, uint64_t seen) {
      if (said != seen) {
        Bad(p, at + "summary says " + std::to_string(said) + " " + what + ", records show " + std::to_string(seen));
      }
    };
    expect("groups", s.groups, n_groups);
    expect("tuples", s.tuples, tokens);
    expect("counterfeits", s.counterfeits, eventless);
    expect("events", s.events, events);
    if (s.waiting) expect("waiting tuples", *s.waiting, out.waiting.size());
    if (s.partitions != r_.partitions_) Bad(p, at + "summary gives the wrong partition count");
    const int64_t len = r_.config_.privacy.epoch.length_seconds * 1000;
    if (s.epoch_start != e * len || s.epoch_end != (e + 1) * len) Bad(p, at + "summary epoch bounds are wrong");
    if (!s.published) Bad(p, at + "summary lacks 'published'");
    out.metrics.published = s.published.value_or(0);
    out.metrics.counterfeits = s.counterfeits;
    for (size_t k = 0; k < 3; ++k) out.metrics.suppressed_by_reason[k] = s.suppressed[k];
    account->summary_events += s.events;
  }
  for (const std::string& v : checker_->Check(in, out)) Bad(p, "checker: " + v);

  account->releases++;
  account->published_events += events;
  account->published_tuples += tokens - eventless;
  account->counterfeits += eventless;
  for (const auto& [vin, sig] : out.new_signatures) known_.emplace(vin, sig);
  std::vector<Carried> next;
  for (const engine::StillWaiting& w : out.waiting) {
    const engine::Tuple& t = w.ref < current ? in.tuples[w.ref] : in.waiting[w.ref - current].tuple;
    next.push_back({{t, w.first_release}, info[w.ref]});
  }
  waiting_ = std::move(next);
}

E2eReport ReleaseReconstructor::Check() const {
  E2eReport report;
  report.violations = parse_errors_;
  Run run(*this, &report);
  std::set<int32_t> partitions;
  for (const TruthMessage& t : truth_) partitions.insert(t.partition);
  for (const SummaryRecord& s : summaries_) partitions.insert(s.partition);
  for (const GroupRecord& g : groups_) partitions.insert(g.partition);
  for (int32_t p : partitions) {
    if (p < 0 || p >= partitions_) report.violations.push_back("records name partition " + std::to_string(p));
    run.Partition(p);
  }
  return report;
}

}  // namespace vanon::e2e
