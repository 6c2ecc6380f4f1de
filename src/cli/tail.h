// `vanon tail`: for operators on a pod, one line per complete release of the
// releases topic (the rule of release_tracker.h), and a non-zero exit when a
// release stays incomplete longer than a timeout.
#ifndef VANON_SRC_CLI_TAIL_H_
#define VANON_SRC_CLI_TAIL_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
}  // namespace CLI

namespace vanon::cli {

// Exit code of `vanon tail` when a release stays incomplete too long (0 ok,
// 1 runtime failure, 2 bad configuration or usage, as every command).
constexpr int kExitIncompleteRelease = 3;

struct TailArgs {
  std::string config;                  // the service's config: bootstrap, properties, topic names
  std::vector<std::string> overrides;  // --set KEY=VALUE
  bool json = false;
  bool from_beginning = false;  // default: releases whose summaries come after the start
  // Seconds a release may wait for its last summary; 0: two epochs plus the
  // allowed lateness and idle timeout plus 30 s, from the config.
  double timeout = 0;
  uint64_t count = 0;  // exit 0 after this many complete releases; 0: until stopped
};

// Registers `tail` and its flags on `app`, filling `args`.
CLI::App* AddTailCommand(CLI::App* app, TailArgs* args);

int RunTail(const TailArgs& args, const std::atomic<bool>& stop);

}  // namespace vanon::cli

#endif  // VANON_SRC_CLI_TAIL_H_
