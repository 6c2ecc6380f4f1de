// ReleaseWriter renders one partition's share of a release as the JSON
// records of privacy-model.md section 4 (schemas/anonymized-event.v1 and
// schemas/release-record.v2):
// - one record per published event for vehicle.events.anonymized;
// - one "group" record per group for vehicle.releases, its tuples listed as
//   (token, sensitive value) with counterfeits among them in random order;
// - one "summary" record, to be written last.
//
// Group ids and tuple tokens are fresh per release, drawn from `random`
// (64 bits each, redrawn on a collision within the release); group order and
// tuple order inside a group are shuffled from the same source. Equal input
// and an equal random stream give byte-identical records. No record carries
// a vehicle key, trip key or anything derived from them.
#ifndef VANON_RELEASE_RELEASE_WRITER_H_
#define VANON_RELEASE_RELEASE_WRITER_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vanon/dp/random_source.h"
#include "vanon/engine/release.h"
#include "vanon/engine/schema.h"
#include "vanon/ingest/buffered_event.h"
#include "vanon/release/payload_transformer.h"
#include "vanon/release/record_list.h"
#include "vanon/release/sensitive_dictionary.h"
#include "vanon/release/tuple_builder.h"

namespace vanon::release {

struct ReleaseContext {
  int32_t partition = 0;
  int32_t partitions = 1;  // total input partitions
  int64_t epoch_start_ms = 0;
  int64_t epoch_end_ms = 0;  // exclusive
};

// The events behind each TupleRef (input.tuples ++ input.waiting), in
// publication order. Waiting tuples' events live in earlier epochs' buffers;
// the service fills their entries.
using TupleEvents = std::vector<std::vector<const ingest::BufferedEvent*>>;

// Entries for the current tuples from TupleBuilder's output and their event
// range, followed by `waiting` empty entries.
TupleEvents EventsOfBuiltTuples(const BuiltTuples& built, std::span<const ingest::BufferedEvent> events,
                                size_t waiting);

struct ReleaseRecords {
  RecordList events;                // vehicle.events.anonymized
  std::vector<std::string> groups;  // vehicle.releases, "type": "group"
  std::string summary;              // vehicle.releases, "type": "summary", last
};

// The reading of a summary record that recovery relies on, next to its
// writer: true when `record` is the summary of release `release` of input
// partition `partition`; false for any other record or unreadable JSON. A
// restart looks for the summary of a prepared release after the offset
// noted at prepare: found, the earlier transaction committed.
bool IsSummaryOf(std::string_view record, int64_t release, int32_t partition);

struct ReleaseWriterDeps {
  const engine::Schema* schema = nullptr;
  // Null when no sensitive attribute is configured: tuples then have no
  // "sensitive" member.
  const SensitiveDictionary* dictionary = nullptr;
  // For the published time bucket. Events' payload_json is published as it
  // is: ingestion transformed it (BufferedEvent version 2).
  const PayloadTransformer* payload = nullptr;
};

ReleaseRecords WriteRelease(const ReleaseWriterDeps& deps, const ReleaseContext& context,
                            const engine::ReleaseInput& input, const engine::ReleaseOutput& output,
                            const TupleEvents& events, dp::RandomSource* random);

}  // namespace vanon::release

#endif  // VANON_RELEASE_RELEASE_WRITER_H_
