// Restore time of the state changelog for n signatures (the goal:
// 1,000,000 in under 30 s), through the service's own StateRestorer: read
// with read_committed from the mock cluster, compacted in memory, written
// into an empty RocksDB with StateStore::ReplacePartition.
//
// librdkafka's mock cluster keeps at most about 5 MB (and 100,000 records)
// per partition, so the n signatures are spread over n / per_partition
// changelog partitions, restored one after the other as a new owner would
// restore them one assignment after another; the total is reported, and
// every partition's record count is checked (a truncated partition would
// look faster). A single ReplacePartition of all n records in one partition
// is timed as well, so the RocksDB side is also measured at full size.
//
//   build/loadtest/changelog/bench_changelog_restore [n] [per_partition]
#include <prometheus/registry.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "service/collector/changelog_writer.h"
#include "service/restore/state_restorer.h"
#include "vanon/seal/record_sealer.h"
#include "vanon/config.h"
#include "vanon/kafka/mock_cluster.h"
#include "vanon/kafka/producer.h"
#include "vanon/state/state_store.h"
#include "in_process_setup.h"

namespace vanon {
namespace {

constexpr const char* kTopic = "vanon.state.changelog";

std::string Vehicle(uint64_t i) {
  std::string v(32, '\0');
  uint64_t x = i * 0x9e3779b97f4a7c15ULL + 1;
  for (char& c : v) {
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ULL;
    c = static_cast<char>(x >> 56);
  }
  return v;
}

// The changelog records of a partition holding `n` signatures and one
// committed release (so that a restore replaces the empty local state).
std::vector<state::StateChange> PartitionRecords(state::StateStore& scratch, int32_t p, uint64_t first, uint64_t n) {
  state::ReleaseWrite w(scratch);
  for (uint64_t i = first; i < first + n; ++i) {
    w.PutSignature(p, Vehicle(i), state::StoredSignature{{1, 5, 9, 14, 20}, 3, 9});
  }
  state::ReleaseLogEntry e;
  e.status = state::ReleaseStatus::kCommitted;
  e.summary = "{\"type\":\"summary\"}";
  w.PutRelease(p, 9, e);
  return w.Changes();
}

// Produces every partition's records; returns the count per partition.
std::vector<uint64_t> ProduceChangelog(const std::string& bootstrap, state::StateStore& scratch, int partitions,
                                       uint64_t per_partition, seal::RecordSealer& sealer) {
  kafka::Producer producer(bootstrap, {}, {}, {{"linger.ms", "20"}, {"batch.num.messages", "10000"}});
  std::vector<uint64_t> counts;
  for (int p = 0; p < partitions; ++p) {
    const std::vector<state::StateChange> records = PartitionRecords(scratch, p, p * per_partition, per_partition);
    for (const state::StateChange& c : records) {
      const std::string key = service::ChangelogKey(p, c);
      producer.Produce(kTopic, p, key, sealer.Seal({kTopic, p, key}, *c.value));
    }
    counts.push_back(records.size());
  }
  if (!producer.Flush(300000) || producer.failures() != 0) throw std::runtime_error("produce failed");
  return counts;
}

int Run(uint64_t n, uint64_t per_partition) {
  const int partitions = static_cast<int>((n + per_partition - 1) / per_partition);
  const std::string dir = std::filesystem::temp_directory_path() / ("vanon-restore-bench-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  kafka::MockCluster cluster(1);
  cluster.CreateTopic(kTopic, partitions);
  const config::Config config =
      config::LoadConfig(std::string(VANON_SOURCE_DIR) + "/config/demo.yaml",
                         {"kafka.bootstrap=" + cluster.Bootstrap(), "state.dir=" + dir + "/state",
                          std::string("state.changelog.topic=") + kTopic});
  std::vector<uint64_t> produced;
  seal::RecordSealer sealer(seal::Keyring::Random("bench"));
  {
    auto scratch = state::StateStore::Open(dir + "/scratch");
    produced = ProduceChangelog(cluster.Bootstrap(), *scratch, partitions, per_partition, sealer);
  }
  auto store = state::StateStore::Open(dir + "/state");
  prometheus::Registry registry;
  service::StateRestorer restorer(config, store.get(), &sealer, /*writer=*/nullptr,
                                  registry);  // an empty store: nothing to seed
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = loadtest::SelfCpuSeconds();
  uint64_t restored = 0;
  for (int p = 0; p < partitions; ++p) {
    if (!restorer.Restore(p, [](int32_t) { return int64_t{-1}; })) throw std::runtime_error("not restored");
    uint64_t got = 0;
    store->ScanSignatures(p, [&](std::string_view, const state::StoredSignature&) {
      ++got;
      return true;
    });
    if (got + 1 != produced[p]) throw std::runtime_error("partition " + std::to_string(p) + " truncated by the mock");
    restored += got;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = loadtest::SelfCpuSeconds() - c0;

  // RocksDB at full size: all n signatures written into one partition.
  std::vector<state::StateChange> all;
  {
    auto scratch = state::StateStore::Open(dir + "/scratch2");
    all = PartitionRecords(*scratch, 0, 0, n);
  }
  auto one = state::StateStore::Open(dir + "/one");
  const auto r0 = std::chrono::steady_clock::now();
  one->ReplacePartition(0, all);
  const double replace = std::chrono::duration<double>(std::chrono::steady_clock::now() - r0).count();
  std::printf(
      "{\"signatures\": %llu, \"partitions\": %d, \"restore_wall_s\": %.2f, \"restore_cpu_s\": %.2f, "
      "\"signatures_per_s\": %.0f, \"replace_partition_one_batch_s\": %.2f}\n",
      static_cast<unsigned long long>(restored), partitions, wall, cpu, restored / wall, replace);
  one.reset();
  store.reset();
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace vanon

int main(int argc, char** argv) {
  const uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  const uint64_t per = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 50000;
  try {
    return vanon::Run(n, per);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "restore benchmark: %s\n", e.what());
    return 1;
  }
}
