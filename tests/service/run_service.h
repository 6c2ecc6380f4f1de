// Runs a Service in-process until a condition holds: the loop every
// in-process service test needs (start Run on a thread, wait on the
// condition with a generous timeout, stop, join).
#ifndef VANON_TESTS_SERVICE_RUN_SERVICE_H_
#define VANON_TESTS_SERVICE_RUN_SERVICE_H_

#include <atomic>
#include <functional>
#include <thread>

#include "test_support.h"
#include "vanon/service/service.h"

namespace vanon::testing {

struct ServiceRun {
  bool done = false;  // the condition held before the timeout
  int rc = -1;        // what Service::Run returned
};

// `before_stop` runs while the service still runs (e.g. to scrape its
// metrics), after the wait, whether or not the condition held.
inline ServiceRun RunServiceUntil(service::Service& service, double timeout_s, const std::function<bool()>& done,
                                  const std::function<void()>& before_stop = {}) {
  std::atomic<bool> stop{false};
  ServiceRun run;
  std::thread t([&] { run.rc = service.Run(stop); });
  run.done = WaitFor(timeout_s, done);
  if (before_stop) before_stop();
  stop = true;
  t.join();
  return run;
}

}  // namespace vanon::testing

#endif  // VANON_TESTS_SERVICE_RUN_SERVICE_H_
