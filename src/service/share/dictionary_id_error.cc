#include "service/share/dictionary_id_error.h"

#include <string>

namespace vanon::service {

std::runtime_error IdBeyondDictionary(int32_t partition, const char* what, size_t dictionary_size,
                                      std::optional<size_t> id) {
  const std::string value = id ? "sensitive value id " + std::to_string(*id) + "," : "a sensitive value id";
  return std::runtime_error("state: partition " + std::to_string(partition) + ": " + what + " refers to " + value +
                            " beyond the partition's dictionary of " + std::to_string(dictionary_size) +
                            " values (damaged state)");
}

}  // namespace vanon::service
