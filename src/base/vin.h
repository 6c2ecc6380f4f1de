// Syntax of a vehicle identification number (ISO 3779): the one validator,
// used by ingestion (every event's VIN) and by the VIN decoding table.

#ifndef VANON_SRC_BASE_VIN_H_
#define VANON_SRC_BASE_VIN_H_

#include <string_view>

namespace vanon::base {

inline constexpr int kVinLength = 17;

// True for the 33 characters a VIN may use: 0-9 and upper-case A-Z without
// I, O and Q (they read too much like 1 and 0).
bool IsVinChar(char c);

// True when `vin` is 17 VIN characters. Lower case is rejected, not
// normalized: ISO 3779 VINs are upper case, and the Kafka key (which decides
// the partition) must equal the body VIN byte for byte, so silently folding
// case would let one vehicle land in two partitions. The check digit
// (position 9) is not verified: it is mandatory only in North America, and
// vanon accepts vehicles from everywhere (vanon/vehicle/vin.h has it).
bool IsValidVin(std::string_view vin);

}  // namespace vanon::base

#endif  // VANON_SRC_BASE_VIN_H_
