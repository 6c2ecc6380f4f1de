// The real binaries as the integration tests run them on the mock cluster:
// vanon-kafka with every topic the service uses, `vanon run` on the demo
// config with 2-second epochs (so that releases come within seconds), and
// the lifecycle tests' instances (upgrades, moved partitions, fenced
// zombies): the test's seq marker kept in payloads, the state changelog on
// or off, each test's cluster, state dirs and feed set up alike.
#ifndef VANON_TESTS_SERVICE_LIFECYCLE_SUPPORT_H_
#define VANON_TESTS_SERVICE_LIFECYCLE_SUPPORT_H_

#include <memory>
#include <string>
#include <vector>

#include "seq_feed.h"
#include "test_support.h"

namespace vanon::testing {

inline constexpr const char* kLifecycleHmacKey = "lifecycle-test-hmac-key-0123456789abcd";
inline constexpr const char* kLifecycleChangelog = "vanon.state.changelog";

// vanon-kafka (one broker) with every topic the service uses and
// `more_topics` ("name:partitions"); *bootstrap is "" if it did not start.
std::unique_ptr<Subprocess> StartServiceKafka(int input_partitions, int output_partitions, std::string* bootstrap,
                                              const std::vector<std::string>& more_topics = {});

// `vanon run --config config/demo.yaml` with what every test of the real
// binary sets: its cluster, state dir and HTTP port, 16 KiB messages, and
// epochs of 2 s (1 s of lateness, closed after 2 s idle). stderr is
// captured with stdout.
struct RunOptions {
  std::string bootstrap;
  std::string state_dir;
  int port = 0;
  std::string hmac_key;
  std::string instance;                        // VANON_INSTANCE_ID
  std::string state_keys_env = kStateKeysEnv;  // the VANON_STATE_KEYS entry
  std::vector<std::string> sets;               // further --set overrides
  std::vector<std::string> env;                // further environment
};

std::unique_ptr<Subprocess> StartRun(const RunOptions& o);

struct InstanceOptions {
  std::string bootstrap;
  std::string instance;  // VANON_INSTANCE_ID: the transactional id's suffix
  std::string state_dir;
  int port = 0;
  bool changelog = true;
  std::vector<std::string> sets;  // further --set overrides
  std::vector<std::string> env;   // further environment, e.g. VANON_FAULT_POINT=...
};

// A lifecycle instance: StartRun with the lifecycle HMAC key, a 6 s
// session timeout, the seq marker and the changelog as `o` says.
std::unique_ptr<Subprocess> StartInstance(const InstanceOptions& o);

// vanon-kafka with every topic the service uses (and the changelog).
std::unique_ptr<Subprocess> StartLifecycleKafka(int input_partitions, int output_partitions, std::string* bootstrap);

// Everything the instance owns is consumed and released.
bool Settled(int port);

// The instance owns all `partitions`, has made at least `releases`
// releases, and has settled.
bool ReleasedAndSettled(int port, int partitions, double releases);

// What each lifecycle test starts from: a cluster with two output
// partitions, an empty state dir for each of the two instances it runs (a,
// then b), and the seq-marked feed. The test asserts that `bootstrap` is set.
struct LifecycleRig {
  // On a vanon-kafka started here with every topic the service uses.
  explicit LifecycleRig(int input_partitions);
  // On a cluster the test holds (e.g. in-process, to inject broker errors).
  explicit LifecycleRig(std::string cluster_bootstrap);

  // An instance on this cluster with its own state dir and a free port.
  InstanceOptions Instance(const std::string& instance, const TempDir& state, bool changelog) const;

  std::string bootstrap;
  std::unique_ptr<Subprocess> kafka;  // null on a cluster the test holds
  TempDir state_a, state_b;
  SeqFeed feed;
};

}  // namespace vanon::testing

#endif  // VANON_TESTS_SERVICE_LIFECYCLE_SUPPORT_H_
