#include "output_records.h"

#include <simdjson.h>

namespace vanon::e2e {

namespace {

using simdjson::dom::element;
using simdjson::dom::object;

// Small readers that record the first problem and let parsing go on, so a
// record with several problems reports one readable sentence.
class Reader {
 public:
  explicit Reader(std::string* error) : error_(error) {}
  bool ok() const { return ok_; }

  void Fail(const std::string& what) {
    if (ok_) *error_ = what;
    ok_ = false;
  }
  template <typename T>
  void Int(element obj, const char* key, T* out) {
    int64_t v = 0;
    if (obj[key].get(v) != simdjson::SUCCESS) return Fail(std::string("missing integer '") + key + "'");
    *out = static_cast<T>(v);
  }
  void Count(element obj, const char* key, uint64_t* out) {
    uint64_t v = 0;
    if (obj[key].get(v) != simdjson::SUCCESS) return Fail(std::string("missing count '") + key + "'");
    *out = v;
  }
  void OptionalCount(element obj, const char* key, std::optional<uint64_t>* out) {
    element e;
    if (obj[key].get(e) != simdjson::SUCCESS) return;
    uint64_t v = 0;
    if (e.get(v) != simdjson::SUCCESS) return Fail(std::string("'") + key + "' is not a count");
    *out = v;
  }
  void String(element obj, const char* key, std::string* out) {
    std::string_view v;
    if (obj[key].get(v) != simdjson::SUCCESS) return Fail(std::string("missing string '") + key + "'");
    out->assign(v);
  }
  void Labels(element obj, const char* key, std::map<std::string, std::string>* out) {
    object qi;
    if (obj[key].get(qi) != simdjson::SUCCESS) return Fail(std::string("missing object '") + key + "'");
    for (auto [name, value] : qi) {
      std::string_view label;
      if (value.get(label) != simdjson::SUCCESS) return Fail("a QI label is not a string");
      (*out)[std::string(name)] = std::string(label);
    }
  }

 private:
  std::string* error_;
  bool ok_ = true;
};

bool ParseDoc(simdjson::dom::parser& parser, std::string_view json, element* doc, std::string* error) {
  if (parser.parse(json.data(), json.size()).get(*doc) != simdjson::SUCCESS || !doc->is_object()) {
    *error = "not a JSON object";
    return false;
  }
  return true;
}

}  // namespace

std::optional<EventRecord> ParseEventRecord(std::string_view json, std::string* error) {
  simdjson::dom::parser parser;
  element doc;
  if (!ParseDoc(parser, json, &doc, error)) return std::nullopt;
  Reader r(error);
  EventRecord e;
  r.Int(doc, "release", &e.release);
  r.String(doc, "group", &e.group);
  r.String(doc, "tuple", &e.tuple);
  r.Labels(doc, "qi", &e.qi);
  r.Int(doc, "ts", &e.ts);
  r.String(doc, "event", &e.event);
  element payload;
  if (doc["payload"].get(payload) != simdjson::SUCCESS || !payload.is_object()) {
    r.Fail("missing object 'payload'");
  } else {
    uint64_t seq = 0;
    if (payload["seq"].get(seq) == simdjson::SUCCESS) e.seq = seq;
  }
  if (!r.ok()) return std::nullopt;
  e.raw.assign(json);
  return e;
}

std::optional<ReleaseRecord> ParseReleaseRecord(std::string_view json, std::string* error) {
  simdjson::dom::parser parser;
  element doc;
  if (!ParseDoc(parser, json, &doc, error)) return std::nullopt;
  Reader r(error);
  std::string type;
  r.String(doc, "type", &type);
  ReleaseRecord out;
  if (type == "group") {
    GroupRecord& g = out.group;
    r.Int(doc, "release", &g.release);
    r.Int(doc, "partition", &g.partition);
    r.String(doc, "group", &g.group);
    r.Labels(doc, "qi", &g.qi);
    r.Count(doc, "counterfeits", &g.counterfeits);
    simdjson::dom::array list;
    if (doc["tuples"].get(list) == simdjson::SUCCESS) {
      for (element t : list) {
        GroupTuple gt;
        r.String(t, "tuple", &gt.token);
        std::string_view s;
        if (t["sensitive"].get(s) == simdjson::SUCCESS) gt.sensitive = std::string(s);
        g.tuples.push_back(std::move(gt));
      }
      g.size = g.tuples.size();
    } else {
      int64_t version = 0;
      r.Int(doc, "version", &version);
      g.version = static_cast<int>(version);
      r.Count(doc, "size", &g.size);
      if (doc["sensitive"].get(list) == simdjson::SUCCESS) {
        for (element v : list) {
          std::string_view s;
          if (v.get(s) != simdjson::SUCCESS) {
            r.Fail("a sensitive value that is not a string");
            continue;
          }
          g.sensitive.emplace_back(s);
        }
      }
    }
  } else if (type == "summary") {
    out.is_summary = true;
    SummaryRecord& s = out.summary;
    r.Int(doc, "release", &s.release);
    r.Int(doc, "partition", &s.partition);
    r.Int(doc, "partitions", &s.partitions);
    r.Int(doc, "epoch_start", &s.epoch_start);
    r.Int(doc, "epoch_end", &s.epoch_end);
    r.Count(doc, "groups", &s.groups);
    r.Count(doc, "tuples", &s.tuples);
    r.Count(doc, "counterfeits", &s.counterfeits);
    r.Count(doc, "events", &s.events);
    r.OptionalCount(doc, "published", &s.published);
    r.OptionalCount(doc, "waiting", &s.waiting);
    element suppressed;
    if (doc["suppressed"].get(suppressed) != simdjson::SUCCESS) {
      r.Fail("missing object 'suppressed'");
    } else {
      r.Count(suppressed, "signature_conflict", &s.suppressed[0]);
      r.Count(suppressed, "delay", &s.suppressed[1]);
      r.Count(suppressed, "ineligible", &s.suppressed[2]);
    }
  } else if (r.ok()) {
    r.Fail("unknown record type '" + type + "'");
  }
  if (!r.ok()) return std::nullopt;
  return out;
}

}  // namespace vanon::e2e
