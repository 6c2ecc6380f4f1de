// Dotted-path lookup in a simdjson DOM, refusing duplicated keys.

#ifndef VANON_SRC_INGEST_JSON_PATH_H_
#define VANON_SRC_INGEST_JSON_PATH_H_

#include <simdjson.h>

#include <string>
#include <string_view>
#include <vector>

namespace vanon::ingest {
namespace internal {

using JsonPath = std::vector<std::string>;

// Splits "payload.artist" into {"payload", "artist"}. Throws
// std::invalid_argument on an empty path or an empty segment.
JsonPath SplitJsonPath(std::string_view dotted);

enum class Lookup {
  kFound,
  kAbsent,     // some segment is missing
  kDuplicate,  // some segment occurs twice in its object
  kNotObject,  // the root or an intermediate value is not an object
};

// Follows `path` from `root`. Each segment must occur at most once in its
// object: JSON parsers disagree on which duplicate wins, and a second "vin"
// must not slip past checks done on the first.
Lookup Resolve(simdjson::dom::element root, const JsonPath& path, simdjson::dom::element* out);

// Several paths resolved together, each with the answer Resolve would give.
// Resolve scans every member of the root object per path (to find a
// duplicate), so an event's six fields walked its top level six times; a
// PathSet walks it once for all of them and follows deeper segments only
// where a path has them.
class PathSet {
 public:
  explicit PathSet(std::vector<JsonPath> paths);

  // Reads the root's members. Find() answers for this root until the next
  // Scan; `root` must outlive those calls.
  void Scan(simdjson::dom::element root);
  // Resolve(root, paths[i], out).
  Lookup Find(std::size_t i, simdjson::dom::element* out) const;

  std::size_t size() const { return paths_.size(); }

 private:
  // The head equal to `key` other than `guess` (Scan tried it already);
  // size of heads_ if none.
  std::size_t HeadOf(std::string_view key, std::size_t guess) const;

  std::vector<JsonPath> paths_;
  std::vector<std::string> heads_;    // distinct first segments
  std::vector<std::size_t> head_of_;  // per path, into heads_
  bool root_is_object_ = false;
  std::vector<int> matches_;                    // per head: 0, 1 or 2 (= more than one)
  std::vector<simdjson::dom::element> values_;  // per head, when matched once
};

// True when no key occurs twice in `object`. `scratch` is reused storage.
bool HasUniqueKeys(simdjson::dom::object object, std::vector<std::string_view>* scratch);

}  // namespace internal
}  // namespace vanon::ingest

#endif  // VANON_SRC_INGEST_JSON_PATH_H_
