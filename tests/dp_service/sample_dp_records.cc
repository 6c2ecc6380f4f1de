// Prints the vehicle.counts.dp records of a few releases, one JSON document
// per line, for schema validation (validate_dp_records.py).
#include <prometheus/registry.h>

#include <cstdio>

#include "dp_fixture.h"
#include "service/dp/dp_partial_source.h"
#include "service/dp/dp_publisher.h"
#include "vanon/state/state_store.h"

namespace {

// No other partition: the aggregation partition's own partial completes a window.
class NoPartials final : public vanon::service::DpPartialSource {
 public:
  void Read(int64_t, int64_t, const Visit&) override {}
};

// Per-release counts (window_seconds 0) or, with `window_seconds`, DP windows,
// per partition or (global) one count over the input partitions.
void PrintReleases(int64_t window_seconds, int releases, bool global = false) {
  using namespace vanon;
  dp_test::TempDir dir("sample");
  config::Config config = dp_test::TestConfig(dir);
  config.dp.budget_epsilon = 10;
  config.dp.window_seconds = window_seconds;
  auto store = state::StateStore::Open(dir.Sub("state"));
  prometheus::Registry registry;
  if (global) config.dp.aggregation.topic = "vanon.dp.partials";
  service::DpPublisher dp(config, dp_test::kHmacKey, store.get(), registry);
  const int32_t partition = global ? 0 : 2;
  if (global) dp.SetAggregation(1, std::make_unique<NoPartials>());
  for (int64_t epoch = 0; epoch < releases; ++epoch) {
    const int64_t start = epoch * dp_test::kEpochMs;
    // Few vehicles, so clamping and ratio post-processing show up too.
    const auto events = dp_test::Events(static_cast<int>(3 + epoch * 40), start);
    release::SeedStream random(dp_test::SeedOf(static_cast<uint8_t>(epoch)));
    service::DpPublisher::Result r = dp.Compute(partition, epoch, start, start + dp_test::kEpochMs, events, random);
    state::ReleaseWrite w(*store);
    dp_test::ApplyToWrite(dp, partition, r, &w);
    store->Commit(w);
    for (const std::string& rec : r.records) std::printf("%s\n", rec.c_str());
  }
}

}  // namespace

int main() {
  PrintReleases(0, 3);
  PrintReleases(2 * vanon::dp_test::kEpochMs / 1000, 4);  // two windows of two epochs
  PrintReleases(2 * vanon::dp_test::kEpochMs / 1000, 4, /*global=*/true);
  return 0;
}
