// Runs generated events through TupleBuilder, ComputeRelease and
// WriteRelease, carrying signatures and waiting tuples from one release to
// the next as the service will.
#ifndef VANON_TESTS_RELEASE_RELEASE_PIPELINE_H_
#define VANON_TESTS_RELEASE_RELEASE_PIPELINE_H_

#include <map>
#include <string>
#include <vector>

#include "release_fixture.h"
#include "vanon/engine/release.h"
#include "vanon/release/payload_transformer.h"
#include "vanon/release/release_writer.h"
#include "vanon/release/schema_from_config.h"
#include "vanon/release/seed_stream.h"
#include "vanon/release/sensitive_dictionary.h"
#include "vanon/release/tuple_builder.h"

namespace vanon::release_test {

struct Step {
  engine::ReleaseInput input;
  engine::ReleaseOutput output;
  release::ReleaseRecords records;
  std::vector<ingest::BufferedEvent> events;
};

class Pipeline {
 public:
  explicit Pipeline(const config::Config& config)
      : config_(config),
        schema_(release::SchemaFromConfig(config_.quasi_identifiers, config_.sensitive)),
        payload_(config_.payload) {}

  // Release `release` of the events, with random values from `seed`.
  Step Run(uint64_t release, std::vector<ingest::BufferedEvent> events, const release::ReleaseSeed& seed) {
    Step s;
    s.events = std::move(events);
    release::TupleBuilder builder(config_.quasi_identifiers, config_.sensitive, schema_, 0, &dict_);
    release::BuiltTuples built = builder.Build(s.events);
    s.input.release_id = release;
    s.input.tuples = built.tuples;
    s.input.known_signatures = signatures_;
    s.input.waiting = waiting_;
    s.input.params.m = 3;
    s.input.params.max_delay = 1;
    s.input.params.seed = release;
    s.output = ComputeRelease(schema_, s.input);
    release::SeedStream random(seed);
    release::ReleaseWriterDeps deps{&schema_, &dict_, &payload_};
    const auto start = static_cast<int64_t>(release) * 60000;
    release::ReleaseContext ctx{0, 1, start, start + 60000};
    s.records = release::WriteRelease(deps, ctx, s.input, s.output,
                                      release::EventsOfBuiltTuples(built, s.events, s.input.waiting.size()), &random);
    for (const auto& [key, sig] : s.output.new_signatures) signatures_[key] = sig;
    waiting_.clear();
    for (const engine::StillWaiting& w : s.output.waiting)
      waiting_.push_back({ResolveTuple(s.input, w.ref), w.first_release});
    return s;
  }

  const engine::Schema& schema() const { return schema_; }
  const release::SensitiveDictionary& dictionary() const { return dict_; }

 private:
  config::Config config_;
  engine::Schema schema_;
  release::SensitiveDictionary dict_;
  release::PayloadTransformer payload_;
  std::map<std::string, engine::Signature, std::less<>> signatures_;
  std::vector<engine::WaitingTuple> waiting_;
};

inline release::ReleaseSeed SeedOf(uint8_t b) {
  release::ReleaseSeed s{};
  s.fill(b);
  return s;
}

}  // namespace vanon::release_test

#endif  // VANON_TESTS_RELEASE_RELEASE_PIPELINE_H_
