// What the benchmarks that run vanon's parts inside their own process
// share: the CPU time they count, from getrusage, the demo configuration
// over an empty state directory for each iteration, and the fleet they feed.
#ifndef VANON_LOADTEST_SERVICE_IN_PROCESS_SETUP_H_
#define VANON_LOADTEST_SERVICE_IN_PROCESS_SETUP_H_

#include <cstdint>
#include <memory>
#include <string>

#include "vanon/config.h"
#include "vanon/fleet/fleet_generator.h"

namespace vanon::loadtest {

// User + system CPU seconds of the calling thread so far: the measured work
// alone, apart from the other threads of the process.
double ThreadCpuSeconds();

// The same for the whole process, all its threads.
double SelfCpuSeconds();

// Bytes of this process's memory resident now (/proc/self/statm): the
// pages it has touched and still holds, each zeroed by the kernel when it
// was first touched.
int64_t ResidentBytes();

// config/demo.yaml with its state in `state_dir`, which is emptied first,
// and epochs of `epoch_ms`.
config::Config DemoConfigWithEmptyState(const std::string& state_dir, int64_t epoch_ms);

// The end-to-end benchmarks' fleet: 100,000 vehicles (or `vehicles`) of the
// demo VIN table, `events_per_second` of event time from `start_ms` on.
std::unique_ptr<fleet::FleetGenerator> BenchmarkFleet(int64_t start_ms, double events_per_second,
                                                      uint64_t vehicles = 100000);

}  // namespace vanon::loadtest

#endif  // VANON_LOADTEST_SERVICE_IN_PROCESS_SETUP_H_
