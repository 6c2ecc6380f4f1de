// State names sensitive values by id in the partition's dictionary. An id
// beyond it (a damaged store, or a changelog restored with a dictionary
// record from elsewhere) would be read out of bounds, e.g. when a group
// record lists its values: the share stops where the id is loaded, with the
// partition named, instead.
#ifndef VANON_SRC_SERVICE_SHARE_DICTIONARY_ID_ERROR_H_
#define VANON_SRC_SERVICE_SHARE_DICTIONARY_ID_ERROR_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>

namespace vanon::service {

// The error for `what` (a stored signature, a value window...) of
// `partition` holding a sensitive value id at or beyond `dictionary_size`;
// `id` names it when the caller knows which.
std::runtime_error IdBeyondDictionary(int32_t partition, const char* what, size_t dictionary_size,
                                      std::optional<size_t> id);

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_SHARE_DICTIONARY_ID_ERROR_H_
