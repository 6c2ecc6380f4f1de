// `vanon reseal-changelog`: rewrites every live record of the state
// changelog that is not sealed under the active key (the first of the key
// ring): records of a key being rotated out, and records written in clear by
// a version without encryption (only with --accept-clear). Compaction then
// drops the old copies (docs/operations.md, "Rotating the state key").
//
// Run it with every instance of the deployment stopped: a record rewritten
// from an old read would otherwise overwrite a newer one written meanwhile.
#ifndef VANON_SRC_CLI_RESEAL_CHANGELOG_H_
#define VANON_SRC_CLI_RESEAL_CHANGELOG_H_

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace vanon::cli {

struct ResealArgs {
  std::string config;
  std::vector<std::string> overrides;
  bool accept_clear = false;  // seal records found in clear instead of refusing them
};

// Adds the subcommand to `app`, its options writing into `args`.
CLI::App* AddResealCommand(CLI::App* app, ResealArgs* args);

// Returns the exit code: 0 done, 1 a record that does not open or a Kafka
// error, 2 bad config or keys.
int ResealChangelog(const ResealArgs& args);

}  // namespace vanon::cli

#endif  // VANON_SRC_CLI_RESEAL_CHANGELOG_H_
