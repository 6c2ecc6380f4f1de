// TransactionLoop is the release thread: it opens a batch when prepared jobs
// are queued, produces each of them in order, as soon as it is computed,
// into the batch's one Kafka transaction (ShareCollector, and with the
// changelog on the share's state changes and the input offsets), commits
// it, and hands the batch's jobs to Apply(). Jobs prepared while a batch is
// still producing join it; those prepared once it commits form the next.
// A batch whose share fails the independent check is aborted and computed
// again before anything of it is published.
#ifndef VANON_SRC_SERVICE_RELEASE_TRANSACTION_LOOP_H_
#define VANON_SRC_SERVICE_RELEASE_TRANSACTION_LOOP_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <thread>
#include <vector>

#include "service/release/release_job.h"
#include "vanon/config.h"
#include "vanon/kafka/producer.h"

namespace vanon::kafka {
class TransactionalProducer;
}  // namespace vanon::kafka

namespace vanon::service {

class ChangelogWriter;
class ComputePool;
class ReleaseMetricsExporter;
class ShareCollector;

class TransactionLoop {
 public:
  // Starts the release thread. Every argument must outlive the loop;
  // metrics may be null.
  TransactionLoop(const config::Config& config, kafka::TransactionalProducer* producer, ReleaseMetricsExporter* metrics,
                  ReleaseQueues* queues, ComputePool* pool, ShareCollector* collector);
  ~TransactionLoop() { Stop(); }
  TransactionLoop(const TransactionLoop&) = delete;
  TransactionLoop& operator=(const TransactionLoop&) = delete;

  // Lets the batch in flight finish, then stops the thread.
  void Stop();

  // Before the first job is prepared.
  void SetChangelog(ChangelogWriter* changelog) { changelog_ = changelog; }

  // ReleaseRunner::BatchOpenSince; any thread.
  int64_t BatchOpenSince() const { return batch_open_since_.load(); }

 private:
  struct Batch;

  void Loop();
  std::vector<JobPtr> RunBatch();
  void Publish(Batch& b);
  size_t PublishOnce(Batch& b);
  void Join(Batch& b);
  ReleaseJob* NextComputed(Batch& b, size_t i);
  void Commit(ReleaseJob& job);
  size_t ProduceChangelog(const ReleaseJob& job, const kafka::KafkaHeaders& headers,
                          std::map<int32_t, int64_t>* resume_offsets);

  const config::Config& config_;
  kafka::TransactionalProducer* producer_;
  ReleaseMetricsExporter* metrics_;
  ReleaseQueues* queues_;
  ComputePool* pool_;
  ShareCollector* collector_;
  ChangelogWriter* changelog_ = nullptr;
  std::atomic<int64_t> batch_open_since_{0};  // steady seconds, 0 = no batch
  std::thread thread_;
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_RELEASE_TRANSACTION_LOOP_H_
