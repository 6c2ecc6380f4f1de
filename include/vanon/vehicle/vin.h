// Syntax of a vehicle identification number (ISO 3779).
//
// ISO 3779 fixes the alphabet and length; the check digit at position 9 is
// a North American rule (49 CFR 565) that many other markets follow. The
// service only demands the ISO syntax (a European VIN need not carry a
// valid check digit), the fleet generator always writes a correct one.
#pragma once

#include <string_view>

namespace vanon {

inline constexpr int kVinLength = 17;

// True for the 33 characters a VIN may use: 0-9 and upper-case A-Z without
// I, O and Q (they read too much like 1 and 0).
bool IsVinChar(char c);

// Exactly 17 VIN characters. Lower case is not accepted here.
// The same rule as the ingest layer's IsValidVin (vanon/ingest/vin.h); a
// distinct name so the two libraries can be linked into one binary.
bool IsWellFormedVin(std::string_view vin);

// The check digit ('0'-'9' or 'X') the 49 CFR 565 algorithm gives for
// `vin` (position 9 itself is ignored). Requires IsWellFormedVin(vin).
char VinCheckDigit(std::string_view vin);

// IsWellFormedVin(vin) and position 9 equals VinCheckDigit(vin).
bool HasValidCheckDigit(std::string_view vin);

}  // namespace vanon
