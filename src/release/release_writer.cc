#include "vanon/release/release_writer.h"

#include <simdjson.h>

#include <charconv>
#include <stdexcept>
#include <unordered_set>
#include <utility>

#include "base/hex.h"
#include "base/json.h"

namespace vanon::release {

namespace {

// Fresh 64-bit random ids, unique within one release.
class IdDrawer {
 public:
  IdDrawer(dp::RandomSource* random, size_t expected) : random_(random) { used_.reserve(expected); }
  std::string Next(char prefix) {
    uint64_t v = random_->NextU64();
    while (!used_.insert(v).second) v = random_->NextU64();
    std::string id{prefix, '-'};
    base::AppendHex64(&id, v);
    return id;
  }

 private:
  dp::RandomSource* random_;
  std::unordered_set<uint64_t> used_;
};

template <typename T>
void Shuffle(std::vector<T>* v, dp::RandomSource* random) {
  for (size_t i = v->size(); i > 1; --i) {
    const size_t j = static_cast<size_t>(random->UniformBelow(i));
    std::swap((*v)[i - 1], (*v)[j]);
  }
}

std::string QiObject(const engine::Schema& schema, const engine::Group& group) {
  const std::vector<std::string> labels = GroupLabels(schema, group);
  std::string out = "{";
  for (size_t a = 0; a < schema.size(); ++a) {
    if (a > 0) out.push_back(',');
    base::AppendJsonString(&out, schema.attribute(a).name);
    out.push_back(':');
    base::AppendJsonString(&out, labels[a]);
  }
  out.push_back('}');
  return out;
}

void AppendMetrics(std::string* out, const engine::ReleaseMetrics& m) {
  auto num = [&](const char* name, double v, bool comma = true) {
    if (comma) out->push_back(',');
    base::AppendJsonString(out, name);
    out->push_back(':');
    base::AppendJsonDouble(out, v);
  };
  out->append("{");
  num("suppression_ratio", m.suppression_ratio, false);
  out->append(",\"suppression_ratio_by_reason\":{");
  for (int r = 0; r < engine::kSuppressReasonCount; ++r) {
    num(ToString(static_cast<engine::SuppressReason>(r)), m.suppression_ratio_by_reason[static_cast<size_t>(r)], r > 0);
  }
  out->push_back('}');
  num("discernibility", m.discernibility);
  num("discernibility_normalized", m.discernibility_normalized);
  num("emd_max", m.emd_max_equal);
  if (m.emd_max_ordered) num("emd_max_ordered", *m.emd_max_ordered);
  if (m.emd_max_hierarchical) num("emd_max_hierarchical", *m.emd_max_hierarchical);
  num("ncp", m.ncp);
  out->append(",\"min_group_size\":");
  base::AppendJsonInt(out, m.min_group_size);
  out->append(",\"min_distinct\":");
  base::AppendJsonInt(out, m.min_distinct);
  num("avg_group_size", m.avg_group_size);
  num("counterfeit_ratio", m.counterfeit_ratio);
  num("g_balance", m.g_balance);
  num("h_affiliation", m.h_affiliation);
  num("knowledge_gain", m.knowledge_gain);
  out->push_back('}');
}

}  // namespace

TupleEvents EventsOfBuiltTuples(const BuiltTuples& built, std::span<const ingest::BufferedEvent> events,
                                size_t waiting) {
  TupleEvents out(built.events.size() + waiting);
  for (size_t t = 0; t < built.events.size(); ++t) {
    out[t].reserve(built.events[t].size());  // one allocation per tuple, not one per doubling
    for (uint32_t i : built.events[t]) out[t].push_back(&events[i]);
  }
  return out;
}

namespace {

// A group record (version 2): its values, counterfeits' among them, in an
// order drawn independently of the tuples'. The record lists no token, so
// a reader who can tell real tuples (they have events) from counterfeits
// learns nothing about which value is whose (docs/privacy-model.md, "Why
// values are not linked to tokens").
std::string GroupRecord(const ReleaseWriterDeps& deps, const ReleaseContext& context, const engine::ReleaseInput& input,
                        const engine::Group& group, const std::string& group_id, const std::string& qi,
                        dp::RandomSource* random) {
  std::vector<engine::SensitiveId> values;
  values.reserve(group.members.size() + group.counterfeits.size());
  for (engine::TupleRef ref : group.members) values.push_back(ResolveTuple(input, ref).sensitive);
  for (engine::SensitiveId v : group.counterfeits) values.push_back(v);
  Shuffle(&values, random);
  std::string rec = "{\"type\":\"group\",\"version\":2,\"release\":";
  base::AppendJsonInt(&rec, input.release_id);
  rec.append(",\"partition\":");
  base::AppendJsonInt(&rec, context.partition);
  rec.append(",\"group\":");
  base::AppendJsonString(&rec, group_id);
  rec.append(",\"qi\":").append(qi).append(",\"size\":");
  base::AppendJsonInt(&rec, values.size());
  if (deps.dictionary != nullptr) {
    rec.append(",\"sensitive\":[");
    for (size_t i = 0; i < values.size(); ++i) {
      if (i > 0) rec.push_back(',');
      base::AppendJsonString(&rec, deps.dictionary->Value(values[i]));
    }
    rec.push_back(']');
  }
  rec.append(",\"counterfeits\":");
  base::AppendJsonInt(&rec, group.counterfeits.size());
  rec.push_back('}');
  return rec;
}

// A number as JSON, printed again only when it changes: published times
// are bucketed (a minute by default), so a tuple's events mostly share one,
// and printing it was about 300 instructions per event record (callgrind).
class LastNumber {
 public:
  void Append(int64_t v, std::string* out) {
    if (len_ == 0 || v != value_) {
      value_ = v;
      len_ = static_cast<size_t>(std::to_chars(digits_, digits_ + sizeof(digits_), v).ptr - digits_);
    }
    out->append(digits_, len_);
  }

 private:
  int64_t value_ = 0;
  size_t len_ = 0;  // 0: nothing printed yet
  char digits_[24];
};

// Event names quoted as JSON strings, each once: a release has a handful of
// names and hundreds of thousands of events, and quoting a name again for
// every record was about 200 instructions each (callgrind). Keys point into
// the buffered events, which outlive the writer.
class QuotedNames {
 public:
  void Append(std::string_view name, std::string* out) {
    for (const auto& [known, quoted] : names_) {
      if (known == name) {
        out->append(quoted);
        return;
      }
    }
    if (names_.size() == kMax) {  // an unusual release: quote as it comes
      base::AppendJsonString(out, name);
      return;
    }
    std::string quoted;
    base::AppendJsonString(&quoted, name);
    out->append(quoted);
    names_.emplace_back(name, std::move(quoted));
  }

 private:
  static constexpr size_t kMax = 32;
  std::vector<std::pair<std::string_view, std::string>> names_;
};

// The event records of one group's tuples, in shuffled tuple order, each
// tuple under a fresh token.
void AppendEventRecords(const ReleaseWriterDeps& deps, const engine::ReleaseInput& input, const engine::Group& group,
                        const std::string& group_id, const std::string& qi, const TupleEvents& events, IdDrawer* ids,
                        QuotedNames* names, dp::RandomSource* random, RecordList* out) {
  std::vector<engine::TupleRef> members(group.members.begin(), group.members.end());
  Shuffle(&members, random);
  std::string head;  // what every event record of a tuple starts with
  LastNumber ts;
  for (engine::TupleRef ref : members) {
    head = "{\"release\":";
    base::AppendJsonInt(&head, input.release_id);
    head.append(",\"group\":");
    base::AppendJsonString(&head, group_id);
    head.append(",\"tuple\":");
    base::AppendJsonString(&head, ids->Next('t'));
    head.append(",\"qi\":").append(qi).append(",\"ts\":");
    for (const ingest::BufferedEvent* e : events[ref]) {
      std::string* buf = out->buffer();  // a new one after a Seal() now and then
      buf->append(head);
      ts.Append(deps.payload->PublishedTime(e->ts_ms), buf);
      buf->append(",\"event\":");
      names->Append(e->event, buf);
      buf->append(",\"payload\":").append(e->payload_json);  // transformed at ingestion
      buf->push_back('}');
      out->Seal();
    }
  }
}

std::string SummaryRecord(const ReleaseContext& context, const engine::ReleaseInput& input,
                          const engine::ReleaseOutput& output, uint64_t real, uint64_t counterfeits, size_t events) {
  std::string s = "{\"type\":\"summary\",\"version\":2,\"release\":";
  base::AppendJsonInt(&s, input.release_id);
  s.append(",\"partition\":");
  base::AppendJsonInt(&s, context.partition);
  s.append(",\"partitions\":");
  base::AppendJsonInt(&s, context.partitions);
  s.append(",\"epoch_start\":");
  base::AppendJsonInt(&s, context.epoch_start_ms);
  s.append(",\"epoch_end\":");
  base::AppendJsonInt(&s, context.epoch_end_ms);
  s.append(",\"groups\":");
  base::AppendJsonInt(&s, output.groups.size());
  s.append(",\"tuples\":");
  base::AppendJsonInt(&s, real + counterfeits);
  s.append(",\"published\":");
  base::AppendJsonInt(&s, real);
  s.append(",\"counterfeits\":");
  base::AppendJsonInt(&s, counterfeits);
  s.append(",\"events\":");
  base::AppendJsonInt(&s, events);
  s.append(",\"waiting\":");
  base::AppendJsonInt(&s, output.waiting.size());
  s.append(",\"suppressed\":{");
  std::array<uint64_t, engine::kSuppressReasonCount> by_reason{};
  for (const engine::Suppressed& x : output.suppressed) by_reason[static_cast<size_t>(x.reason)]++;
  for (int r = 0; r < engine::kSuppressReasonCount; ++r) {
    if (r > 0) s.push_back(',');
    base::AppendJsonString(&s, ToString(static_cast<engine::SuppressReason>(r)));
    s.push_back(':');
    base::AppendJsonInt(&s, by_reason[static_cast<size_t>(r)]);
  }
  s.append("},\"metrics\":");
  AppendMetrics(&s, output.metrics);
  s.push_back('}');
  return s;
}

}  // namespace

bool IsSummaryOf(std::string_view record, int64_t release, int32_t partition) {
  thread_local simdjson::ondemand::parser parser;  // recovery reads many records
  simdjson::padded_string json(record);
  simdjson::ondemand::document doc;
  if (parser.iterate(json).get(doc)) return false;
  std::string_view type;
  int64_t r = 0, p = 0;
  if (doc["type"].get_string().get(type) || type != "summary") return false;
  if (doc["release"].get_int64().get(r) || r != release) return false;
  return !doc["partition"].get_int64().get(p) && p == partition;
}

ReleaseRecords WriteRelease(const ReleaseWriterDeps& deps, const ReleaseContext& context,
                            const engine::ReleaseInput& input, const engine::ReleaseOutput& output,
                            const TupleEvents& events, dp::RandomSource* random) {
  if (deps.schema == nullptr || deps.payload == nullptr || random == nullptr) {
    throw std::invalid_argument(
        "WriteRelease: schema, payload transformer (for the time bucket) and random source are required");
  }
  if (events.size() != input.tuples.size() + input.waiting.size()) {
    throw std::invalid_argument("WriteRelease: one TupleEvents entry per input tuple and waiting tuple");
  }
  ReleaseRecords records;
  size_t expected_ids = output.groups.size();
  for (const engine::Group& g : output.groups) expected_ids += g.members.size() + g.counterfeits.size();
  IdDrawer ids(random, expected_ids);
  size_t expected_events = 0;
  for (const engine::Group& g : output.groups) {
    for (engine::TupleRef ref : g.members) expected_events += events[ref].size();
  }
  records.events.Reserve(expected_events);

  std::vector<size_t> group_order(output.groups.size());
  for (size_t g = 0; g < group_order.size(); ++g) group_order[g] = g;
  Shuffle(&group_order, random);
  uint64_t real = 0;
  uint64_t counterfeits = 0;
  QuotedNames names;
  for (size_t g : group_order) {
    const engine::Group& group = output.groups[g];
    const std::string group_id = ids.Next('g');
    const std::string qi = QiObject(*deps.schema, group);
    records.groups.push_back(GroupRecord(deps, context, input, group, group_id, qi, random));
    AppendEventRecords(deps, input, group, group_id, qi, events, &ids, &names, random, &records.events);
    real += group.members.size();
    counterfeits += group.counterfeits.size();
  }
  records.summary = SummaryRecord(context, input, output, real, counterfeits, records.events.size());
  return records;
}

}  // namespace vanon::release
