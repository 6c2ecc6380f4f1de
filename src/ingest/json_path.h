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

// True when no key occurs twice in `object`. `scratch` is reused storage.
bool HasUniqueKeys(simdjson::dom::object object, std::vector<std::string_view>* scratch);

}  // namespace internal
}  // namespace vanon::ingest

#endif  // VANON_SRC_INGEST_JSON_PATH_H_
