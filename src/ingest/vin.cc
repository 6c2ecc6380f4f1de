#include "vanon/ingest/vin.h"

namespace vanon {

bool IsValidVin(std::string_view vin) {
  if (vin.size() != 17) return false;
  for (char c : vin) {
    const bool digit = c >= '0' && c <= '9';
    // I, O and Q are excluded by ISO 3779 to avoid confusion with 1 and 0.
    const bool letter = c >= 'A' && c <= 'Z' && c != 'I' && c != 'O' && c != 'Q';
    if (!digit && !letter) return false;
  }
  return true;
}

}  // namespace vanon
