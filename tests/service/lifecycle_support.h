// `vanon run` instances for the lifecycle tests (upgrades, moved partitions,
// fenced zombies): the demo config with 2-second epochs, the test's seq
// marker kept in payloads, and the state changelog on or off.
#ifndef VANON_TESTS_SERVICE_LIFECYCLE_SUPPORT_H_
#define VANON_TESTS_SERVICE_LIFECYCLE_SUPPORT_H_

#include <memory>
#include <string>
#include <vector>

#include "test_support.h"

namespace vanon::testing {

inline constexpr const char* kLifecycleHmacKey = "lifecycle-test-hmac-key-0123456789abcd";
inline constexpr const char* kLifecycleChangelog = "vanon.state.changelog";

struct InstanceOptions {
  std::string bootstrap;
  std::string instance;  // VANON_INSTANCE_ID: the transactional id's suffix
  std::string state_dir;
  int port = 0;
  bool changelog = true;
  std::vector<std::string> sets;  // further --set overrides
  std::vector<std::string> env;   // further environment, e.g. VANON_FAULT_POINT=...
};

std::unique_ptr<Subprocess> StartInstance(const InstanceOptions& o);

// vanon-kafka with every topic the service uses (and the changelog).
std::unique_ptr<Subprocess> StartLifecycleKafka(int input_partitions, int output_partitions, std::string* bootstrap);

// Everything the instance owns is consumed and released.
bool Settled(int port);

}  // namespace vanon::testing

#endif  // VANON_TESTS_SERVICE_LIFECYCLE_SUPPORT_H_
