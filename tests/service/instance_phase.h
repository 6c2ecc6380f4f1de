// The end of a phase of a `vanon run` child, as every test of the real
// binary writes it: wait until a condition holds (a failure shows the
// instance's log), check what the test checks while it still runs (e.g. its
// metrics), then stop it with SIGTERM and expect exit 0 within 60 s; and the
// lifecycle tests' whole phase, from the start of an instance to its stop
// once it has released and settled. These assert: call them under
// ASSERT_NO_FATAL_FAILURE, so a failed wait or stop ends the test as it
// would inline.
#ifndef VANON_TESTS_SERVICE_INSTANCE_PHASE_H_
#define VANON_TESTS_SERVICE_INSTANCE_PHASE_H_

#include <gtest/gtest.h>
#include <signal.h>

#include <functional>
#include <memory>

#include "lifecycle_support.h"
#include "test_support.h"

namespace vanon::testing {

inline void FinishPhase(Subprocess& run, double timeout_s, const std::function<bool()>& done,
                        const std::function<void()>& before_stop = {}) {
  ASSERT_TRUE(WaitFor(timeout_s, done)) << run.Output();
  if (before_stop) before_stop();
  run.Signal(SIGTERM);
  ASSERT_EQ(run.Wait(60), 0) << run.Output();
}

// Starts the instance (*run) and finishes its phase once it owns all
// `partitions`, has made at least `releases` releases and has settled,
// within 90 s.
inline void RunUntilReleased(const InstanceOptions& o, int partitions, double releases,
                             std::unique_ptr<Subprocess>* run, const std::function<void()>& before_stop = {}) {
  *run = StartInstance(o);
  FinishPhase(
      **run, 90, [&] { return ReleasedAndSettled(o.port, partitions, releases); }, before_stop);
}

}  // namespace vanon::testing

#endif  // VANON_TESTS_SERVICE_INSTANCE_PHASE_H_
