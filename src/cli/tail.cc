#include "tail.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "release_tracker.h"
#include "vanon/config.h"
#include "vanon/kafka/topic_tail.h"

namespace vanon::cli {

namespace {

using Clock = ReleaseTracker::Clock;

std::string Line(const CompleteRelease& r, bool json) {
  if (json) {
    return fmt::format(
        "{{\"release\":{},\"partitions\":{},\"groups\":{},\"published\":{},\"suppressed\":{},\"counterfeits\":{},"
        "\"tuples\":{},\"events\":{}}}",
        r.release, r.partitions, r.groups, r.published, r.suppressed, r.counterfeits, r.tuples, r.events);
  }
  return fmt::format(
      "release {} complete: partitions {}, groups {}, published {}, suppressed {}, counterfeits {} "
      "({} tuples, {} events)",
      r.release, r.partitions, r.groups, r.published, r.suppressed, r.counterfeits, r.tuples, r.events);
}

std::string Missing(const IncompleteRelease& r, int32_t partitions) {
  return fmt::format("no summary from input partition(s) {} of {}", fmt::join(r.missing, ", "), partitions);
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

double DefaultTimeout(const config::EpochConfig& e) {
  return static_cast<double>(2 * e.length_seconds + e.allowed_lateness_seconds + e.idle_timeout_seconds + 30);
}

struct Tail {
  const TailArgs& args;
  const config::Config& config;
  ReleaseTracker tracker;
  double timeout;
  uint64_t complete = 0;

  // One record of the releases topic; true once `count` releases are out.
  bool Take(const kafka::TailRecord& r) {
    std::optional<ShareSummary> s;
    try {
      s = ParseShareSummary(r.value);
      if (!s) return false;
      std::optional<CompleteRelease> done = tracker.Add(*s, Clock::now());
      if (!done) return false;
      std::printf("%s\n", Line(*done, args.json).c_str());
      std::fflush(stdout);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(
          fmt::format("{} [{}] offset {}: {}", config.kafka.topics.releases, r.partition, r.offset, e.what()));
    }
    return args.count > 0 && ++complete >= args.count;
  }

  // After each poll: what was abandoned, and whether one waits too long.
  bool Overdue() {
    const char* why = args.from_beginning ? "its summary is no longer retained, or the partition had no events yet"
                                          : "it was under way when this tail started";
    for (const IncompleteRelease& a : tracker.TakeAbandoned()) {
      std::fprintf(stderr, "vanon tail: release %lld skipped, %s: partitions moved on (%s)\n",
                   static_cast<long long>(a.release), Missing(a, tracker.partitions()).c_str(), why);
    }
    std::optional<IncompleteRelease> oldest = tracker.OldestPending(Clock::now());
    if (!oldest || Seconds(oldest->waited) <= timeout) return false;
    std::fprintf(stderr, "vanon tail: release %lld incomplete for %.0f s (timeout %.0f s): %s\n",
                 static_cast<long long>(oldest->release), Seconds(oldest->waited), timeout,
                 Missing(*oldest, tracker.partitions()).c_str());
    return true;
  }
};

}  // namespace

CLI::App* AddTailCommand(CLI::App* app, TailArgs* args) {
  CLI::App* tail = app->add_subcommand("tail", "one line per complete release (all partitions' summaries arrived)");
  tail->add_option("--config", args->config, "the service's config file (bootstrap, topics)")->required();
  tail->add_option("--set", args->overrides, "override a config key, as run does (repeatable)");
  tail->add_flag("--json", args->json, "one JSON object per line");
  tail->add_flag("--from-beginning", args->from_beginning, "every retained release, not only new ones");
  tail->add_option("--timeout", args->timeout,
                   "exit 3 when a release waits longer for its summaries (s; default: from the epochs)")
      ->check(CLI::NonNegativeNumber);
  tail->add_option("--count", args->count, "exit 0 after this many complete releases");
  return tail;
}

int RunTail(const TailArgs& args, const std::atomic<bool>& stop) {
  const config::Config config = config::LoadConfig(args.config, args.overrides);
  kafka::KafkaProperties props = config.kafka.properties;
  for (const auto& [k, v] : config.kafka.consumer_properties) props[k] = v;
  const std::string& input = config.kafka.topics.input;
  const int32_t partitions = kafka::TopicPartitionCount(config.kafka.bootstrap, props, input);
  if (partitions == 0) {
    throw std::runtime_error("input topic " + input +
                             " is not in the cluster's metadata: cannot tell how many summaries make a release");
  }
  kafka::TopicTail topic(config.kafka.bootstrap, props, config.kafka.topics.releases,
                         args.from_beginning ? kafka::TopicTail::Start::kBeginning : kafka::TopicTail::Start::kEnd);
  Tail tail{args, config, ReleaseTracker(partitions),
            args.timeout > 0 ? args.timeout : DefaultTimeout(config.privacy.epoch)};
  std::fprintf(stderr, "vanon tail: %s, %d input partitions, incomplete after %.0f s\n",
               config.kafka.topics.releases.c_str(), partitions, tail.timeout);
  while (!stop.load()) {
    for (const kafka::TailRecord& r : topic.Poll(1000, 500)) {
      if (tail.Take(r)) return 0;
    }
    if (tail.Overdue()) return kExitIncompleteRelease;
  }
  return 0;
}

}  // namespace vanon::cli
