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
void ParseSensitive(Section& root, std::optional<SensitiveConfig>* out);
void ParsePayload(Section& root, PayloadConfig* out);
void ParsePrivacy(Section& root, PrivacyConfig* out);
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
