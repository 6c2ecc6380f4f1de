#include "vanon/service/service.h"

#include <prometheus/registry.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "vanon/http/http_server.h"
#include "vanon/kafka/consumer.h"
#include "vanon/kafka/producer.h"
#include "vanon/service/ingest_metrics.h"
#include "vanon/service/ingest_pipeline.h"
#include "vanon/state/state_store.h"

namespace vanon {

namespace {
int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch()).count();
}
int64_t SteadySeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}
// A loop that has not turned for this long is reported unhealthy.
constexpr int64_t kStallSeconds = 60;
}  // namespace

struct Service::Rep {
  Config config;
  std::string hmac_key;
  std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();
  IngestMetrics metrics{*registry};

  std::atomic<bool> state_open{false};
  std::atomic<int> partitions{0};
  std::atomic<int64_t> heartbeat{SteadySeconds()};
  std::atomic<uint64_t> consumed{0}, accepted{0}, rejected{0}, buffered{0};
  mutable std::mutex url_mu;
  std::string url;
};

Service::Service(Config config, std::string hmac_key) : rep_(std::make_unique<Rep>()) {
  rep_->config = std::move(config);
  rep_->hmac_key = std::move(hmac_key);
  RegisterBuildInfo(*rep_->registry);
}

Service::~Service() = default;

ServiceStatus Service::Status() const {
  ServiceStatus s;
  s.consumed = rep_->consumed.load();
  s.accepted = rep_->accepted.load();
  s.rejected = rep_->rejected.load();
  s.buffered = rep_->buffered.load();
  s.partitions = rep_->partitions.load();
  s.ready = rep_->state_open.load() && s.partitions > 0;
  return s;
}

std::string Service::MetricsUrl() const {
  std::lock_guard<std::mutex> l(rep_->url_mu);
  return rep_->url.empty() ? "" : rep_->url + "/metrics";
}

int Service::Run(const std::atomic<bool>& stop) {
  Rep& r = *rep_;
  const Config& c = r.config;
  HealthChecks checks;
  checks.healthy = [&r](std::string* detail) {
    int64_t idle = SteadySeconds() - r.heartbeat.load();
    if (idle > kStallSeconds) {
      *detail = "main loop stalled for " + std::to_string(idle) + " s";
      return false;
    }
    return true;
  };
  checks.ready = [&r](std::string* detail) {
    if (!r.state_open.load()) {
      *detail = "state not open";
      return false;
    }
    if (r.partitions.load() == 0) {
      *detail = "no input partitions assigned";
      return false;
    }
    return true;
  };
  HttpServer http(c.http.listen, r.registry, checks);
  {
    std::lock_guard<std::mutex> l(r.url_mu);
    r.url = http.url();
  }
  spdlog::info("http listening on {}", http.url());

  std::unique_ptr<StateStore> store = StateStore::Open(c.state.dir);
  uint64_t buffered = store->CountAllEvents();
  r.buffered = buffered;
  r.metrics.buffered.Set(static_cast<double>(buffered));
  r.state_open = true;
  spdlog::info("state open at {} with {} buffered events", c.state.dir, buffered);

  Producer dlq(c.kafka.bootstrap, c.kafka.properties, c.kafka.producer_properties);
  IngestPipeline pipeline(c, r.hmac_key, store.get(), &dlq, &r.metrics);
  Consumer consumer(
      c.kafka.bootstrap, c.kafka.group_id, c.kafka.topics.input,
      static_cast<size_t>(c.input.max_message_bytes), c.kafka.properties,
      c.kafka.consumer_properties,
      [&](int32_t p) {
        auto at = pipeline.ResumeOffset(p);
        spdlog::info("partition {} assigned, resuming at {}", p, at ? std::to_string(*at) : "earliest");
        return at;
      },
      [&](const std::vector<int32_t>& gone) {
        // Everything consumed so far is already committed to state: Process()
        // writes each batch atomically before the next poll.
        pipeline.ForgetPartitions(gone);
        spdlog::info("{} partitions revoked", gone.size());
      });

  auto last_metrics = std::chrono::steady_clock::now() - std::chrono::seconds(10);
  int exit_code = 0;
  try {
    while (!stop.load()) {
      const auto& batch = consumer.Poll(static_cast<size_t>(c.kafka.poll_batch_max), c.kafka.poll_timeout_ms);
      pipeline.Process(batch, NowMs());
      r.heartbeat = SteadySeconds();
      PartitionProgress t = pipeline.Totals();
      r.consumed = t.consumed;
      r.accepted = t.accepted;
      r.rejected = t.rejected_total();
      r.buffered = static_cast<uint64_t>(r.metrics.buffered.Value());
      auto now = std::chrono::steady_clock::now();
      if (now - last_metrics >= std::chrono::seconds(1)) {
        last_metrics = now;
        std::vector<int32_t> assigned = consumer.Assigned();
        r.partitions = static_cast<int>(assigned.size());
        int64_t sum = 0, max = 0;
        for (int32_t p : assigned) {
          int64_t hi = consumer.HighWatermark(p);
          int64_t next = pipeline.NextOffset(p);
          if (next < 0) next = std::max<int64_t>(consumer.LowWatermark(p), 0);
          int64_t lag = hi >= 0 ? std::max<int64_t>(hi - next, 0) : 0;
          sum += lag;
          max = std::max(max, lag);
        }
        r.metrics.lag_sum.Set(static_cast<double>(sum));
        r.metrics.lag_max.Set(static_cast<double>(max));
        r.metrics.partitions.Set(static_cast<double>(assigned.size()));
        r.metrics.ready.Set(r.partitions.load() > 0 ? 1 : 0);
        r.metrics.state_bytes.Set(static_cast<double>(store->ApproximateBytes()));
      }
    }
    spdlog::info("stopping: batch finished, closing consumer");
  } catch (const std::exception& e) {
    spdlog::error("fatal: {}", e.what());
    exit_code = 1;
  }
  consumer.Close();
  r.partitions = 0;
  dlq.Flush(30000);
  store->Flush();
  r.state_open = false;
  store.reset();
  spdlog::info("state closed; exit {}", exit_code);
  return exit_code;
}

}  // namespace vanon
