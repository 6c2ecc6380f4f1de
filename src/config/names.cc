#include "parse.h"
#include "vanon/config.h"

namespace vanon::config {

const char* ToString(VehicleSource v) {
  switch (v) {
    case VehicleSource::kVinTable:
      return "vin_table";
    case VehicleSource::kRegistry:
      return "registry";
    case VehicleSource::kEventFields:
      return "event_fields";
  }
  return "?";
}

const char* ToString(PrivacyModel v) {
  switch (v) {
    case PrivacyModel::kMInvariance:
      return "m_invariance";
    case PrivacyModel::kKAnonymity:
      return "k_anonymity";
  }
  return "?";
}

const char* ToString(LogLevel v) {
  switch (v) {
    case LogLevel::kTrace:
      return "trace";
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarn:
      return "warn";
    case LogLevel::kError:
      return "error";
  }
  return "?";
}

namespace internal {

bool IsIdentifier(const std::string& s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    bool digit = c >= '0' && c <= '9';
    if (!alpha && !(digit && i > 0)) return false;
  }
  return true;
}

}  // namespace internal
}  // namespace vanon::config
