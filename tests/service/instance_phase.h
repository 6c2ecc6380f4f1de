// The end of a phase of a `vanon run` child, as every test of the real
// binary writes it: wait until a condition holds (a failure shows the
// instance's log), check what the test checks while it still runs (e.g. its
// metrics), then stop it with SIGTERM and expect exit 0 within 60 s. It
// asserts: call it under ASSERT_NO_FATAL_FAILURE, so a failed wait or stop
// ends the test as it would inline.
#ifndef VANON_TESTS_SERVICE_INSTANCE_PHASE_H_
#define VANON_TESTS_SERVICE_INSTANCE_PHASE_H_

#include <gtest/gtest.h>
#include <signal.h>

#include <functional>

#include "test_support.h"

namespace vanon::testing {

inline void FinishPhase(Subprocess& run, double timeout_s, const std::function<bool()>& done,
                        const std::function<void()>& before_stop = {}) {
  ASSERT_TRUE(WaitFor(timeout_s, done)) << run.Output();
  if (before_stop) before_stop();
  run.Signal(SIGTERM);
  ASSERT_EQ(run.Wait(60), 0) << run.Output();
}

}  // namespace vanon::testing

#endif  // VANON_TESTS_SERVICE_INSTANCE_PHASE_H_
