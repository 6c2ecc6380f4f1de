// An independent oracle for sequences of releases. It shares only data types
// with the engine (no helpers), and re-derives every property from the raw
// input tuples, which are the ground truth of which vehicle each tuple is.
#ifndef VANON_ENGINE_CHECKER_H_
#define VANON_ENGINE_CHECKER_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "vanon/engine/release.h"
#include "vanon/engine/schema.h"

namespace vanon::engine {

class ReleaseChecker {
 public:
  explicit ReleaseChecker(const Schema& schema) : schema_(schema) {}

  // Checks the next release of the sequence and returns its violations, each
  // a human-readable sentence (empty when the release is correct):
  // - groups m-unique (m-invariance) or k-anonymous with distinct l;
  // - each vehicle's signature equal in every release it appears in, and
  //   equal to what the input claims was stored; a signature may be missing
  //   from the input only when its vehicle was last published more than
  //   params.signature_horizon releases ago (0: never), and the vehicle is
  //   then checked as a new one;
  // - each published label covers the member's raw QI;
  // - counterfeits fill exactly the signature slots without a real tuple, and
  //   the metrics count them;
  // - every input tuple published, suppressed with a plausible reason, or
  //   still waiting, exactly once; waiting tuples come back in the next input.
  std::vector<std::string> Check(const ReleaseInput& input, const ReleaseOutput& output);

 private:
  struct Pass;  // one Check() call, in steps (checker.cc)

  const Schema& schema_;
  std::map<std::string, Signature, std::less<>> signatures_;
  std::map<std::string, uint64_t, std::less<>> last_published_;  // release, by vehicle
  // Tuples the previous release left waiting: vehicle -> first_release.
  std::multimap<std::string, uint64_t> expected_waiting_;
  bool started_ = false;
};

}  // namespace vanon::engine

#endif  // VANON_ENGINE_CHECKER_H_
