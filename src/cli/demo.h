// `vanon demo`: everything in one process - an embedded Kafka cluster (the
// librdkafka mock, on 127.0.0.1), the synthetic fleet and the real service -
// with a one-line status every second.
#ifndef VANON_SRC_CLI_DEMO_H_
#define VANON_SRC_CLI_DEMO_H_

#include <atomic>
#include <string>
#include <vector>

namespace vanon::cli {

struct DemoArgs {
  double duration = 0;  // seconds; 0 = until Ctrl-C
  // About 100 events per vehicle and 10 s epoch: enough media events that
  // the per-epoch mode artist (the demo's sensitive value) is mostly the
  // vehicle's favourite. With sparse events it flips from epoch to epoch and
  // m-invariance suppresses a third of the vehicles as signature conflicts.
  uint64_t vehicles = 500;
  double rate = 5000;
  double invalid_fraction = 0.01;
  int partitions = 2;
  std::string http_listen = "127.0.0.1:9464";
  bool http_explicit = false;          // --http given: a taken address is then an error
  std::string config;                  // default: <config dir>/demo.yaml
  std::vector<std::string> overrides;  // --set KEY=VALUE, after the config file
  bool keep_state = false;
  bool verbose = false;
};

int RunDemo(const DemoArgs& args, const std::atomic<bool>& stop);

}  // namespace vanon::cli

#endif  // VANON_SRC_CLI_DEMO_H_
