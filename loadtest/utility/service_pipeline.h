// The service's release path over a drifting fleet: each epoch's activity
// becomes buffered events, and the release share that `vanon run` computes
// (ComputeShare over an in-memory ShareState, the tuple builder, value
// windows, the engine, the per-share check, the records) turns them into a
// release; its state delta is applied before the next one, as the runner's
// apply does. A sequence checker sees every release. So what the benchmark
// prints is what a deployment with the same config publishes.
#ifndef VANON_LOADTEST_UTILITY_SERVICE_PIPELINE_H_
#define VANON_LOADTEST_UTILITY_SERVICE_PIPELINE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "drifting_fleet.h"
#include "pipeline.h"
#include "vanon/config.h"

namespace vanon::utility {

// config/vanon.yaml with the benchmark's QIs (those of UtilitySchema), DP
// off, and `overrides` (e.g. "privacy.preset=window", "privacy.m=10").
config::Config ServiceConfig(const std::string& config_file, const std::vector<std::string>& overrides);

class ServicePipeline final : public UtilityPipeline {
 public:
  ServicePipeline(std::string name, const config::Config& config);
  ~ServicePipeline();
  ServicePipeline(const ServicePipeline&) = delete;
  ServicePipeline& operator=(const ServicePipeline&) = delete;

  ReleaseRow Release(uint64_t release, const std::vector<EpochActivity>& epoch, const DriftingFleet& fleet) override;

  const std::string& name() const override { return name_; }
  const std::vector<std::string>& last_violations() const override { return violations_; }

 private:
  struct Rep;
  std::string name_;
  std::unique_ptr<Rep> rep_;
  std::vector<std::string> violations_;
};

}  // namespace vanon::utility

#endif  // VANON_LOADTEST_UTILITY_SERVICE_PIPELINE_H_
