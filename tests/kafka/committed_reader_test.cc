// ReadCommitted against librdkafka's mock cluster. The mock reports the last
// stable offset as the high watermark and writes no transaction markers, so
// these tests cover ranges, ordering and stopping, not the hiding of aborted
// records (see src/kafka/transactional_producer.cc).
#include "vanon/kafka/committed_reader.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "kafka_test_util.h"
#include "vanon/kafka/transactional_producer.h"

namespace vanon::kafka {
namespace {

class CommittedReaderTest : public MockKafkaTest {
 protected:
  // Commits n records numbered from `first` to topic "summary", partition 1
  // of 2, in one transaction.
  void Publish(int first, int n) {
    if (!producer_) {
      cluster_.CreateTopic("summary", 2);
      producer_ = std::make_unique<TransactionalProducer>(bootstrap_, "vanon-reader-test", KafkaProperties{},
                                                          KafkaProperties{});
      // Fetch the topic's metadata now, as the release loop does at start;
      // otherwise the first produce waits for librdkafka's 1 s topic scan.
      producer_->PartitionCount("summary");
    }
    producer_->BeginTransaction();
    for (int i = first; i < first + n; i++) producer_->Produce("summary", 1, Key(i), Value(i));
    producer_->CommitTransaction();
  }

  std::unique_ptr<TransactionalProducer> producer_;
};

TEST_F(CommittedReaderTest, SeesEveryCommittedRecordInOrder) {
  Publish(0, 25);
  Publish(25, 5);
  std::vector<ReadRecord> got = ReadAll("summary", 1, 0);
  ASSERT_EQ(got.size(), 30u);
  for (int i = 0; i < 30; i++) {
    EXPECT_EQ(got[i].key, Key(i));
    EXPECT_EQ(got[i].value, Value(i));
    if (i > 0) {
      EXPECT_LT(got[i - 1].offset, got[i].offset);
    }
  }
  EXPECT_TRUE(ReadAll("summary", 0, 0).empty());
}

TEST_F(CommittedReaderTest, StartsAtTheGivenOffset) {
  Publish(0, 20);
  std::vector<ReadRecord> all = ReadAll("summary", 1, 0);
  ASSERT_EQ(all.size(), 20u);
  int64_t middle = all[12].offset;
  std::vector<ReadRecord> tail = ReadAll("summary", 1, middle);
  ASSERT_EQ(tail.size(), 8u);
  for (size_t i = 0; i < tail.size(); i++) {
    EXPECT_EQ(tail[i].offset, all[12 + i].offset);
    EXPECT_EQ(tail[i].key, all[12 + i].key);
    EXPECT_EQ(tail[i].value, all[12 + i].value);
  }
}

TEST_F(CommittedReaderTest, OffsetBelowLogStartReadsFromLogStart) {
  Publish(0, 4);
  std::vector<ReadRecord> got = ReadAll("summary", 1, -100);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].key, Key(0));
}

// A short timeout: if the reader waited for records that never come it
// would throw instead of returning.
TEST_F(CommittedReaderTest, ReturnsAtOnceFromTheEndOrOnAnEmptyPartition) {
  Publish(0, 6);
  int64_t end = producer_->EndOffsets("summary", {1}).at(1);
  ASSERT_GT(end, 0);
  EXPECT_TRUE(ReadAll("summary", 1, end, 3000).empty());
  EXPECT_TRUE(ReadAll("summary", 1, end + 50, 3000).empty());
  EXPECT_TRUE(ReadAll("summary", 0, 0, 3000).empty());
}

TEST_F(CommittedReaderTest, StopsAtTheEndThatExistedWhenCalled) {
  Publish(0, 10);
  int calls = 0;
  ReadCommitted(bootstrap_, {}, {}, "summary", 1, 0, [&](const CommittedRecord& r) {
    // Records committed while reading are past the end fixed at the start.
    if (calls++ == 0) Publish(100, 5);
    EXPECT_NE(r.key, Key(100));
    return true;
  });
  EXPECT_EQ(calls, 10);
  EXPECT_EQ(ReadAll("summary", 1, 0).size(), 15u);
}

TEST_F(CommittedReaderTest, VisitorCanStopEarly) {
  Publish(0, 10);
  std::vector<std::string> keys;
  ReadCommitted(bootstrap_, {}, {}, "summary", 1, 0, [&](const CommittedRecord& r) {
    keys.emplace_back(r.key);
    return keys.size() < 3;
  });
  EXPECT_EQ(keys, (std::vector<std::string>{Key(0), Key(1), Key(2)}));
}

// One CommittedReader read again and again (the DP aggregation partition's
// use): each read starts at its own offset, backwards too, and sees records
// committed after the previous read.
TEST_F(CommittedReaderTest, LongLivedReaderReadsFromAnyOffsetAgain) {
  Publish(0, 10);
  CommittedReader reader(bootstrap_, KafkaProperties{}, KafkaProperties{}, "summary", 1);
  auto read = [&](int64_t from) {
    std::vector<std::string> keys;
    reader.Read(from, [&](const CommittedRecord& r) {
      keys.emplace_back(r.key);
      return true;
    });
    return keys;
  };
  const std::vector<std::string> first = read(0);
  ASSERT_EQ(first.size(), 10u);
  EXPECT_EQ(first.front(), Key(0));
  Publish(10, 5);
  const std::vector<std::string> more = read(10);
  ASSERT_EQ(more.size(), 5u);
  EXPECT_EQ(more.front(), Key(10));
  const std::vector<std::string> back = read(3);  // an earlier offset: a seek backwards
  ASSERT_EQ(back.size(), 12u);
  EXPECT_EQ(back.front(), Key(3));
  EXPECT_EQ(back.back(), Key(14));
}

TEST_F(CommittedReaderTest, MissingPartitionThrows) {
  Publish(0, 1);
  EXPECT_THROW(ReadAll("summary", 7, 0, 5000), std::runtime_error);
}

}  // namespace
}  // namespace vanon::kafka
