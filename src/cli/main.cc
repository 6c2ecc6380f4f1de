// vanon: streaming anonymization for connected-vehicle data.
//   vanon run --config FILE [--set KEY=VALUE ...]
//   vanon validate-config FILE [--set KEY=VALUE ...]
//   vanon demo [--duration S] [--vehicles N] [--rate R]
//   vanon loadgen --bootstrap B --topic T --vehicles N --rate R --duration S [--seed X] [--invalid-fraction F]
//   vanon tail --config FILE [--set KEY=VALUE ...] [--json] [--from-beginning] [--timeout S] [--count N]
//   vanon version
// Exit codes: 0 ok, 1 runtime failure, 2 bad configuration or usage, and for
// tail 3 when a release stays incomplete longer than its timeout.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <iostream>

#include "demo.h"
#include "hmac_key.h"
#include "reseal_changelog.h"
#include "state_keys.h"
#include "loadgen.h"
#include "stop_signal.h"
#include "tail.h"
#include "vanon/config.h"
#include "vanon/config/dp_budget.h"
#include "vanon/service/qi_resolver.h"
#include "vanon/service/json_log.h"
#include "vanon/service/service.h"
#include "vanon/version.h"

namespace {

constexpr int kExitConfig = 2;

int CmdRun(const std::string& path, const std::vector<std::string>& overrides) {
  vanon::config::Config config;
  try {
    config = vanon::config::LoadConfig(path, overrides, &vanon::service::QiResolver::Check);
  } catch (const vanon::config::ConfigError& e) {
    std::cerr << e.what() << std::endl;
    return kExitConfig;
  }
  std::string error;
  std::optional<std::string> key = vanon::cli::ReadHmacKey(config, &error);
  if (!key) {
    std::cerr << error << std::endl;
    return kExitConfig;
  }
  std::optional<vanon::seal::Keyring> state_keys = vanon::cli::ReadStateKeys(config, &error);
  if (!error.empty()) {
    std::cerr << error << std::endl;
    return kExitConfig;
  }
  vanon::service::InitJsonLogging(vanon::config::ToString(config.logging.level));
  std::atomic<bool>& stop = vanon::cli::InstallStopSignalHandlers();
  spdlog::info("vanon {} ({}) starting with {}", vanon::kVersion, vanon::kRevision, config.path);
  try {
    vanon::service::Service service(std::move(config), std::move(*key), std::move(state_keys));
    return service.Run(stop);
  } catch (const std::exception& e) {
    spdlog::error("start-up failed: {}", e.what());
    return 1;
  }
}

int CmdValidate(const std::string& path, const std::vector<std::string>& overrides) {
  try {
    // The same check as `run`: the QIs (and registry column) must be in
    // the VIN table or registry file, which must be readable.
    vanon::config::Config c = vanon::config::LoadConfig(path, overrides, &vanon::service::QiResolver::Check);
    std::cout << c.path << ": ok" << std::endl;
    if (c.dp.enabled) std::cout << vanon::config::DescribeDpBudget(c, vanon::config::PlanDpBudget(c)) << std::endl;
    return 0;
  } catch (const vanon::config::ConfigError& e) {
    std::cerr << e.what() << std::endl;
    return kExitConfig;
  }
}

int CmdLoadgen(const vanon::cli::LoadgenArgs& lg) {
  std::atomic<bool>& stop = vanon::cli::InstallStopSignalHandlers();
  vanon::cli::LoadgenProgress progress;
  uint64_t n = vanon::cli::RunLoadgen(lg, stop, &progress);
  std::cout << "loadgen: delivered " << n << " messages (" << progress.invalid.load() << " malformed)" << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"vanon: streaming anonymization for connected-vehicle data"};
  app.require_subcommand(1);

  std::string config_path;
  std::vector<std::string> overrides;
  auto* run = app.add_subcommand("run", "run the service");
  run->add_option("--config", config_path, "config file")->required();
  run->add_option("--set", overrides, "override a config key: dotted.key=value (repeatable)");

  std::string validate_path;
  auto* validate = app.add_subcommand("validate-config", "check a config file and exit (2 when invalid)");
  validate->add_option("file", validate_path, "config file")->required();
  std::vector<std::string> validate_overrides;
  validate->add_option("--set", validate_overrides, "override a config key, as run does (repeatable)");

  vanon::cli::DemoArgs demo_args;
  auto* demo = app.add_subcommand("demo", "embedded Kafka + synthetic fleet + the real service");
  demo->add_option("--duration", demo_args.duration, "seconds to run; 0 = until Ctrl-C")->check(CLI::NonNegativeNumber);
  demo->add_option("--vehicles", demo_args.vehicles, "fleet size")->check(CLI::PositiveNumber);
  demo->add_option("--rate", demo_args.rate, "events per second")->check(CLI::PositiveNumber);
  demo->add_option("--invalid-fraction", demo_args.invalid_fraction, "share of malformed events")
      ->check(CLI::Range(0.0, 1.0));
  auto* demo_http = demo->add_option("--http", demo_args.http_listen,
                                     "metrics address (host:port; default 127.0.0.1:9464, or a free port when taken)");
  demo->add_option("--config", demo_args.config, "config file (default: demo.yaml)");
  demo->add_option("--set", demo_args.overrides, "override a config key: dotted.key=value (repeatable)");
  demo->add_flag("--keep-state", demo_args.keep_state, "keep the temporary state directory");
  demo->add_flag("--verbose", demo_args.verbose, "show the service's info logs");

  vanon::cli::LoadgenArgs lg;
  auto* loadgen = app.add_subcommand("loadgen", "produce a synthetic fleet's events to Kafka");
  loadgen->add_option("--bootstrap", lg.bootstrap, "Kafka bootstrap servers")->required();
  loadgen->add_option("--topic", lg.topic, "topic")->capture_default_str();
  loadgen->add_option("--vehicles", lg.vehicles, "fleet size")->check(CLI::PositiveNumber);
  loadgen->add_option("--rate", lg.rate, "events per second")->check(CLI::PositiveNumber);
  loadgen->add_option("--duration", lg.duration, "seconds; 0 = until Ctrl-C")->check(CLI::NonNegativeNumber);
  loadgen->add_option("--seed", lg.seed, "random seed (same seed, same events)");
  loadgen->add_option("--invalid-fraction", lg.invalid_fraction, "share of malformed events")
      ->check(CLI::Range(0.0, 1.0));
  loadgen->add_option("--churn", lg.churn, "share of vehicles leaving at each churn epoch")
      ->check(CLI::Range(0.0, 0.99));
  loadgen->add_option("--max-message-bytes", lg.max_message_bytes,
                      "size limit the malformed too_large messages exceed (match input.max_message_bytes)");
  loadgen->add_option("--vin-table", lg.vin_table, "VIN decoding table (default: config/vehicle/vin-table.yaml)");
  loadgen->add_option("--start-ms", lg.start_ms, "event time of the first message (default: now)");

  vanon::cli::ResealArgs reseal_args;
  CLI::App* reseal = vanon::cli::AddResealCommand(&app, &reseal_args);
  vanon::cli::TailArgs tail_args;
  CLI::App* tail = vanon::cli::AddTailCommand(&app, &tail_args);

  app.add_subcommand("version", "print the version");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : kExitConfig;
  }

  try {
    if (*run) return CmdRun(config_path, overrides);
    if (*validate) return CmdValidate(validate_path, validate_overrides);
    if (*reseal) return vanon::cli::ResealChangelog(reseal_args);
    if (*demo) {
      demo_args.http_explicit = demo_http->count() > 0;
      return vanon::cli::RunDemo(demo_args, vanon::cli::InstallStopSignalHandlers());
    }
    if (*tail) return vanon::cli::RunTail(tail_args, vanon::cli::InstallStopSignalHandlers());
    if (*loadgen) return CmdLoadgen(lg);
    std::cout << "vanon " << vanon::kVersion << " (" << vanon::kRevision << ")" << std::endl;
    return 0;
  } catch (const vanon::config::ConfigError& e) {
    std::cerr << e.what() << std::endl;
    return kExitConfig;
  } catch (const std::exception& e) {
    std::cerr << "vanon: " << e.what() << std::endl;
    return 1;
  }
}
