#include "json_path.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace vanon::ingest {
namespace internal {

namespace {

// The n bytes at x and y, sizeof(Word) <= n <= 2 * sizeof(Word), compared
// as two overlapping words.
template <typename Word>
inline bool SameWords(const char* x, const char* y, std::size_t n) {
  Word a[2], b[2];
  std::memcpy(&a[0], x, sizeof(Word));
  std::memcpy(&b[0], y, sizeof(Word));
  std::memcpy(&a[1], x + n - sizeof(Word), sizeof(Word));
  std::memcpy(&b[1], y + n - sizeof(Word), sizeof(Word));
  return a[0] == b[0] && a[1] == b[1];
}

// Member names are short and compared with every mapped field's name (a
// visible cost in bench_ingest): a name of 4 to 16 bytes is compared as two
// overlapping words that cover it, without a memcmp call.
inline bool SameKey(std::string_view a, std::string_view b) {
  const std::size_t n = a.size();
  if (n != b.size()) return false;
  const char* x = a.data();
  const char* y = b.data();
  if (n > 16) return std::memcmp(x, y, n) == 0;
  if (n >= 8) return SameWords<std::uint64_t>(x, y, n);
  if (n >= 4) return SameWords<std::uint32_t>(x, y, n);
  for (std::size_t i = 0; i < n; ++i) {
    if (x[i] != y[i]) return false;
  }
  return true;
}

}  // namespace

JsonPath SplitJsonPath(std::string_view dotted) {
  JsonPath path;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = dotted.find('.', start);
    const std::string_view segment =
        dotted.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (segment.empty()) {
      throw std::invalid_argument("invalid field path '" + std::string(dotted) + "'");
    }
    path.emplace_back(segment);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return path;
}

namespace {

// Resolve() from segment `first` on.
Lookup ResolveFrom(simdjson::dom::element root, const JsonPath& path, std::size_t first, simdjson::dom::element* out) {
  simdjson::dom::element current = root;
  for (std::size_t i = first; i < path.size(); ++i) {
    const std::string& segment = path[i];
    simdjson::dom::object object;
    if (current.get_object().get(object) != simdjson::SUCCESS) {
      return Lookup::kNotObject;
    }
    int matches = 0;
    for (simdjson::dom::key_value_pair field : object) {
      if (SameKey(field.key, segment)) {
        if (++matches > 1) return Lookup::kDuplicate;
        current = field.value;
      }
    }
    if (matches == 0) return Lookup::kAbsent;
  }
  *out = current;
  return Lookup::kFound;
}

}  // namespace

Lookup Resolve(simdjson::dom::element root, const JsonPath& path, simdjson::dom::element* out) {
  return ResolveFrom(root, path, 0, out);
}

PathSet::PathSet(std::vector<JsonPath> paths) : paths_(std::move(paths)) {
  for (const JsonPath& p : paths_) {
    if (p.empty()) throw std::invalid_argument("PathSet: empty path");
    auto it = std::find(heads_.begin(), heads_.end(), p[0]);
    head_of_.push_back(static_cast<std::size_t>(it - heads_.begin()));
    if (it == heads_.end()) heads_.push_back(p[0]);
  }
  matches_.resize(heads_.size());
  values_.resize(heads_.size());
}

std::size_t PathSet::HeadOf(std::string_view key, std::size_t guess) const {
  for (std::size_t h = 0; h < heads_.size(); ++h) {
    if (h != guess && SameKey(key, heads_[h])) return h;
  }
  return heads_.size();
}

// Heads are distinct, so a key matches at most one. Producers write their
// fields in one order, and the mapping usually lists them in that order: the
// head after the last one matched is tried first, which makes one comparison
// per member the common case instead of one per head.
void PathSet::Scan(simdjson::dom::element root) {
  std::fill(matches_.begin(), matches_.end(), 0);
  simdjson::dom::object object;
  root_is_object_ = root.get_object().get(object) == simdjson::SUCCESS;
  if (!root_is_object_) return;
  std::size_t guess = 0;
  for (simdjson::dom::key_value_pair field : object) {
    const std::string_view key = field.key;
    std::size_t h = guess;
    if (h >= heads_.size() || !SameKey(key, heads_[h])) h = HeadOf(key, guess);
    if (h == heads_.size()) continue;
    if (matches_[h] == 0) values_[h] = field.value;
    matches_[h] = std::min(matches_[h] + 1, 2);
    guess = h + 1;
  }
}

Lookup PathSet::Find(std::size_t i, simdjson::dom::element* out) const {
  if (!root_is_object_) return Lookup::kNotObject;
  const std::size_t h = head_of_[i];
  if (matches_[h] == 0) return Lookup::kAbsent;
  if (matches_[h] > 1) return Lookup::kDuplicate;
  if (paths_[i].size() == 1) {  // most mapped fields are top-level members
    *out = values_[h];
    return Lookup::kFound;
  }
  return ResolveFrom(values_[h], paths_[i], 1, out);
}

bool HasUniqueKeys(simdjson::dom::object object, std::vector<std::string_view>* scratch) {
  scratch->clear();
  for (simdjson::dom::key_value_pair field : object) {
    scratch->push_back(field.key);
  }
  // Typical payloads have a handful of keys: compare pairwise. Sort only
  // when quadratic work could be abused by a wide object.
  const std::size_t n = scratch->size();
  if (n <= 16) {
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i + 1; j < n; ++j) {
        if ((*scratch)[i] == (*scratch)[j]) return false;
      }
    }
    return true;
  }
  std::sort(scratch->begin(), scratch->end());
  return std::adjacent_find(scratch->begin(), scratch->end()) == scratch->end();
}

}  // namespace internal
}  // namespace vanon::ingest
