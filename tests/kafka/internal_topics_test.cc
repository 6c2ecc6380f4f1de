// EnsureInternalTopics on librdkafka's mock cluster. The mock (2.0.2) has no
// CreateTopics and no DescribeConfigs handler, so what runs here is: listing
// without auto-creating, the refusal of a missing topic with the manual fix
// (create off, or the broker cannot create), the partition-count refusal,
// and acceptance of fitting topics with cleanup.policy reported unchecked.
// The creation itself needs a real broker (docs/state.md, "Tests").
#include "vanon/kafka/internal_topics.h"

#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "vanon/kafka/mock_cluster.h"

namespace vanon::kafka {
namespace {

InternalTopicSpec Changelog(int32_t partitions) {
  InternalTopicSpec s;
  s.name = "vanon.state.changelog";
  s.purpose = "state.changelog.topic";
  s.partitions = partitions;
  s.configs = {{"cleanup.policy", "compact"}, {"retention.ms", "-1"}};
  return s;
}

InternalTopicSpec Partials() {
  InternalTopicSpec s;
  s.name = "vanon.dp.partials";
  s.purpose = "dp.aggregation.topic";
  s.exact_partitions = false;
  return s;
}

std::string Refusal(const std::string& bootstrap, const std::vector<InternalTopicSpec>& topics, bool create) {
  try {
    EnsureInternalTopics(bootstrap, {}, topics, create, 10000);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(InternalTopics, MissingTopicIsRefusedWithTheManualFixAndNotAutoCreated) {
  MockCluster cluster(1);
  const std::string refusal = Refusal(cluster.Bootstrap(), {Changelog(6)}, /*create=*/false);
  EXPECT_EQ(refusal,
            "state.changelog.topic topic vanon.state.changelog does not exist: create it with 6 partition(s), "
            "cleanup.policy=compact, retention.ms=-1, or set kafka.create_internal_topics: true");
  // Asking did not create it (a metadata request naming it would have, with
  // the mock's 4 partitions): the same refusal again.
  EXPECT_EQ(Refusal(cluster.Bootstrap(), {Changelog(6)}, false), refusal);
}

TEST(InternalTopics, ABrokerThatCannotCreateGivesItsReasonAndTheManualFix) {
  MockCluster cluster(1);
  const std::string refusal = Refusal(cluster.Bootstrap(), {Partials(), Changelog(3)}, /*create=*/true);
  // The mock names a controller it does not have (and has no CreateTopics
  // handler): the first topic's refusal names it, without waiting.
  EXPECT_NE(refusal.find("cannot create dp.aggregation.topic topic vanon.dp.partials: the cluster names no "
                         "controller broker to ask"),
            std::string::npos)
      << refusal;
  EXPECT_NE(refusal.find("; create it with 1 partition(s), or give vanon's principal the Create ACL"),
            std::string::npos)
      << refusal;
}

TEST(InternalTopics, FittingTopicsPassAndSayCleanupPolicyWasNotReported) {
  MockCluster cluster(1);
  cluster.CreateTopic("vanon.state.changelog", 6);
  cluster.CreateTopic("vanon.dp.partials", 3);  // partials use partition 0: more is fine
  std::vector<std::string> log;
  ASSERT_NO_THROW(log = EnsureInternalTopics(cluster.Bootstrap(), {}, {Changelog(6), Partials()}, true, 10000));
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0],
            "state.changelog.topic topic vanon.state.changelog: 6 partition(s), cleanup.policy not reported by "
            "the broker (not checked)");
  EXPECT_EQ(log[1], "dp.aggregation.topic topic vanon.dp.partials: 3 partition(s)");
}

TEST(InternalTopics, WrongPartitionCountIsRefusedEvenWhenCreatingIsOn) {
  MockCluster cluster(1);
  cluster.CreateTopic("vanon.state.changelog", 4);
  EXPECT_EQ(Refusal(cluster.Bootstrap(), {Changelog(6)}, /*create=*/true),
            "state.changelog.topic topic vanon.state.changelog has 4 partition(s); it needs exactly 6 (one per "
            "input partition)");
}

// The refusals the mock cannot provoke, on the broker's facts directly.
TEST(InternalTopicsCheck, ACompactedChangelogPassesInAnyPolicyOrder) {
  TopicFacts f{true, 6, std::string("compact")};
  EXPECT_EQ(CheckInternalTopic(Changelog(6), f), "");
  f.cleanup_policy.reset();  // not reported: not checked
  EXPECT_EQ(CheckInternalTopic(Changelog(6), f), "");
}

TEST(InternalTopicsCheck, AChangelogThatAlsoDeletesIsRefused) {
  for (const char* policy : {"delete", "compact,delete", "delete, compact"}) {
    TopicFacts f{true, 6, std::string(policy)};
    EXPECT_EQ(CheckInternalTopic(Changelog(6), f),
              std::string("state.changelog.topic topic vanon.state.changelog has cleanup.policy=") + policy +
                  "; it needs cleanup.policy=compact (kafka-configs --alter --entity-type topics --entity-name "
                  "vanon.state.changelog --add-config cleanup.policy=compact)");
  }
}

TEST(InternalTopicsCheck, PartialsNeedAtLeastOnePartitionAndNoPolicy) {
  EXPECT_EQ(CheckInternalTopic(Partials(), TopicFacts{true, 2, std::string("delete")}), "");
  EXPECT_EQ(CheckInternalTopic(Partials(), TopicFacts{true, 0, std::nullopt}),
            "dp.aggregation.topic topic vanon.dp.partials has 0 partition(s); it needs at least 1");
}

}  // namespace
}  // namespace vanon::kafka
