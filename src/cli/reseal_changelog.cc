#include "reseal_changelog.h"

#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>

#include "state_keys.h"
#include "vanon/config.h"
#include "vanon/kafka/committed_reader.h"
#include "vanon/kafka/transactional_producer.h"
#include "vanon/seal/record_sealer.h"

namespace vanon::cli {

namespace {

constexpr int kReadTimeoutMs = 300000;

struct PartitionCounts {
  size_t live = 0, current = 0, rotated = 0, clear = 0;
};

// The partition's live records (compaction's rule: the last record of a key
// wins, a tombstone removes it).
std::map<std::string, std::string> LiveRecords(const config::Config& c, int32_t partition) {
  std::map<std::string, std::string> live;
  kafka::ReadCommitted(
      c.kafka.bootstrap, c.kafka.properties, c.kafka.consumer_properties, c.state.changelog.topic, partition, 0,
      [&](const kafka::CommittedRecord& r) {
        if (r.value.empty()) {
          live.erase(std::string(r.key));
        } else {
          live[std::string(r.key)] = std::string(r.value);
        }
        return true;
      },
      kReadTimeoutMs);
  return live;
}

// Rewrites one partition in one transaction; throws on a record that does
// not open (nothing of the partition is then committed).
PartitionCounts ResealPartition(const config::Config& c, int32_t p, seal::RecordSealer& sealer, bool accept_clear,
                                kafka::TransactionalProducer& out) {
  const std::string& topic = c.state.changelog.topic;
  PartitionCounts n;
  out.BeginTransaction();
  for (const auto& [key, value] : LiveRecords(c, p)) {
    ++n.live;
    const seal::RecordPlace place{topic, p, key};
    if (seal::RecordSealer::KeyIdOf(value) == sealer.keys().active().id) {
      ++n.current;
      continue;
    }
    seal::Opened o = sealer.Open(place, value);
    if (o.status == seal::OpenStatus::kNotSealed && accept_clear) {
      o.plaintext = value;
      ++n.clear;
    } else if (o.status == seal::OpenStatus::kOk) {
      ++n.rotated;
    } else {
      out.AbortTransaction();
      throw std::runtime_error("partition " + std::to_string(p) + ": a record " +
                               seal::RecordSealer::Describe(o, c.security.state_keys_env) +
                               (o.status == seal::OpenStatus::kNotSealed ? "; pass --accept-clear to seal it" : "") +
                               "; nothing of the partition was rewritten");
    }
    out.Produce(topic, p, key, sealer.Seal(place, o.plaintext));
  }
  out.CommitTransaction();
  return n;
}

}  // namespace

CLI::App* AddResealCommand(CLI::App* app, ResealArgs* args) {
  CLI::App* reseal = app->add_subcommand(
      "reseal-changelog",
      "rewrite every changelog record not sealed under the first state key (key rotation; a changelog written in "
      "clear). Stop every instance first");
  reseal->add_option("--config", args->config, "config file")->required();
  reseal->add_option("--set", args->overrides, "override a config key: dotted.key=value (repeatable)");
  reseal->add_flag("--accept-clear", args->accept_clear,
                   "seal records written in clear (by a version without encryption) instead of refusing them");
  return reseal;
}

int ResealChangelog(const ResealArgs& args) {
  config::Config c;
  try {
    c = config::LoadConfig(args.config, args.overrides);
  } catch (const config::ConfigError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  std::string error;
  std::optional<seal::Keyring> keys = ReadStateKeys(c, &error);
  if (!keys) {
    std::fprintf(stderr, "%s\n", error.empty() ? "security.state_keys_env: no key ring" : error.c_str());
    return 2;
  }
  seal::RecordSealer sealer(std::move(*keys));
  try {
    kafka::TransactionalProducer out(c.kafka.bootstrap, c.kafka.transactional_id_prefix + "-reseal", c.kafka.properties,
                                     c.kafka.producer_properties, 60000, nullptr);
    const int32_t partitions = out.PartitionCount(c.state.changelog.topic);
    for (int32_t p = 0; p < partitions; ++p) {
      const PartitionCounts n = ResealPartition(c, p, sealer, args.accept_clear, out);
      std::printf(
          "partition %d: %zu live records, %zu already under key '%s', %zu rewritten from older keys, %zu "
          "sealed from clear\n",
          p, n.live, n.current, sealer.keys().active().id.c_str(), n.rotated, n.clear);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "reseal-changelog: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace vanon::cli
