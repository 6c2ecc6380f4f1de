// One function per top-level section of the config. Each reads its section
// from `root` strictly and reports problems to root.diag(); checks that need
// several sections live in CheckConsistency().

#ifndef VANON_SRC_CONFIG_PARSE_H_
#define VANON_SRC_CONFIG_PARSE_H_

#include "section.h"
#include "vanon/config.h"

namespace vanon::config::internal {

void ParseKafka(Section& root, KafkaConfig* out);
void ParseInput(Section& root, InputConfig* out);
void ParseVehicle(Section& root, VehicleConfig* out);
void ParseQuasiIdentifiers(Section& root, std::vector<QuasiIdentifier>* out);
// `defaults` carries the preset's window and missing-value policy.
void ParseSensitive(Section& root, const SensitiveConfig& defaults, std::optional<SensitiveConfig>* out);
void ParsePayload(Section& root, PayloadConfig* out);
// *out holds the preset's values (ValuesOf) on entry.
void ParsePrivacy(Section& root, PrivacyConfig* out);

// privacy.preset (presets.cc). LoadConfig's default when the key is absent
// is the preset that measured best on drifting values (docs/utility.md); a
// Config built in code has kEpoch's values.
inline constexpr PrivacyPreset kDefaultPreset = PrivacyPreset::kHistory;
const std::initializer_list<std::pair<const char*, PrivacyPreset>>& PresetNames();
// The preset the file (after overrides) names, or the default when it names
// none or an unknown one (ParsePrivacy reports that).
PrivacyPreset PeekPreset(const YAML::Node& root);
struct PresetValues {
  PrivacyConfig privacy;
  SensitiveConfig sensitive;  // window_epochs, missing_policy, carry_epochs
};
PresetValues ValuesOf(PrivacyPreset preset);
// Whether a key the preset sets ended up with another value.
bool DiffersFromPreset(const Config& config, const PresetValues& preset);
void ParseDp(Section& root, DpConfig* out);
// state, http, security, logging.
void ParseService(Section& root, Config* out);

// Run only when every section parsed cleanly, so that a bad value is not
// also reported as a follow-on inconsistency.
void CheckConsistency(const Config& config, Diagnostics* diag);
// What DpPublisher would refuse at run (dp_checks.cc).
void CheckDpPlan(const Config& config, Diagnostics* diag);

// Letters, digits and '_', starting with a letter or '_'.
bool IsIdentifier(const std::string& s);

}  // namespace vanon::config::internal

#endif  // VANON_SRC_CONFIG_PARSE_H_
