// The summary record a partition writes last in each release transaction
// (schemas/release-record.v2.schema.json), reduced to what `vanon tail`
// reports.
#ifndef VANON_SRC_CLI_SHARE_SUMMARY_H_
#define VANON_SRC_CLI_SHARE_SUMMARY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vanon::cli {

struct ShareSummary {
  int64_t release = 0;
  int32_t partition = 0;
  int32_t partitions = 0;  // input partitions, as the service saw them
  uint64_t groups = 0;
  uint64_t tuples = 0;
  uint64_t published = 0;
  uint64_t counterfeits = 0;
  uint64_t events = 0;
  uint64_t suppressed = 0;  // every reason
};

// The summary in `json`; nullopt for any other record of the releases topic
// (a group record). Throws std::invalid_argument, saying what is wrong, for
// a value that is not JSON or a summary without a field it must have.
std::optional<ShareSummary> ParseShareSummary(std::string_view json);

}  // namespace vanon::cli

#endif  // VANON_SRC_CLI_SHARE_SUMMARY_H_
