// Vehicle identification numbers (ISO 3779).

#ifndef VANON_INGEST_VIN_H_
#define VANON_INGEST_VIN_H_

#include <string_view>

namespace vanon {

// True when `vin` is 17 characters from 0-9 and A-Z without I, O and Q.
// Lower case is rejected, not normalized: ISO 3779 VINs are upper case, and
// the Kafka key (which decides the partition) must equal the body VIN byte
// for byte, so silently folding case would let one vehicle land in two
// partitions. The check digit (position 9) is not verified: it is mandatory
// only in North America, and vanon accepts vehicles from everywhere.
bool IsValidVin(std::string_view vin);

}  // namespace vanon

#endif  // VANON_INGEST_VIN_H_
