// How fast the release producer moves one release's records into a Kafka
// transaction on librdkafka's in-process mock cluster: the floor under the
// release latency, since records can only be produced after the epoch
// closes. Records are shaped like anonymized events (about 330 bytes).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "vanon/kafka/mock_cluster.h"
#include "vanon/kafka/transactional_producer.h"

namespace vanon {
namespace {

std::string AnonymizedLike(size_t i) {
  std::string s = R"({"release":179541246,"group":"g-4f1c2a9be0d77e31","tuple":"t-)";
  s += std::to_string(1000000000000000 + i);
  s += R"(","qi":{"make":"*","model_year":"2015-2019","region":"EU","powertrain":"ICE","segment":"*"},)"
       R"("ts":1795412460000,"event":"speed","payload":{"speed_kmh":87.5,"lat":48.14,"lon":11.58,"heading":270}})";
  return s;
}

void BM_ProduceOneRelease(benchmark::State& state) {
  const size_t records = static_cast<size_t>(state.range(0));
  const bool headers = state.range(1) != 0;
  const int partitions = 16;
  kafka::MockCluster cluster(1);
  cluster.CreateTopic("anon", partitions);
  kafka::KafkaProperties props;
  if (const char* e = std::getenv("PROPS")) {
    std::string all = e;
    size_t pos = 0;
    while (pos < all.size()) {
      size_t comma = all.find(',', pos);
      if (comma == std::string::npos) comma = all.size();
      std::string kv = all.substr(pos, comma - pos);
      size_t eq = kv.find('=');
      props[kv.substr(0, eq)] = kv.substr(eq + 1);
      pos = comma + 1;
    }
  }
  kafka::TransactionalProducer producer(cluster.Bootstrap(), "bench-produce", props, {});
  std::vector<std::string> values;
  values.reserve(records);
  for (size_t i = 0; i < records; ++i) values.push_back(AnonymizedLike(i));
  const kafka::KafkaHeaders h =
      headers ? kafka::KafkaHeaders{{"vanon.attempt", "0123456789abcdef"}} : kafka::KafkaHeaders{};
  // The first transaction pays for connections and producer-id set-up.
  producer.BeginTransaction();
  producer.Produce("anon", 0, {}, values[0], h);
  producer.CommitTransaction();
  for (auto _ : state) {
    producer.BeginTransaction();
    for (size_t i = 0; i < records; ++i) {
      producer.Produce("anon", static_cast<int32_t>(i * partitions / records), {}, values[i], h);
    }
    producer.CommitTransaction();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * records));
}
BENCHMARK(BM_ProduceOneRelease)
    ->Args({62000, 1})
    ->Args({62000, 0})
    ->Args({1000, 1})
    ->Args({250000, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace vanon

BENCHMARK_MAIN();
