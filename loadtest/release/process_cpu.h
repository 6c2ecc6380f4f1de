// CPU time of other processes, read from /proc: the cost figure of the
// benchmarks (CPU seconds per million input events) counts the vanon
// process alone, apart from the mock broker, the fleet and the read-back
// consumers that share the benchmark's process and cores.
#ifndef VANON_LOADTEST_RELEASE_PROCESS_CPU_H_
#define VANON_LOADTEST_RELEASE_PROCESS_CPU_H_

#include <sys/types.h>

namespace vanon::loadtest {

// User + system CPU seconds of `pid` (all its threads) so far; -1 when the
// process is gone.
double ProcessCpuSeconds(pid_t pid);

// Peak resident set (VmHWM) of `pid` in MB; -1 when the process is gone.
double ProcessPeakRssMb(pid_t pid);

// The same summed over every live process of process group `pgid`.
double GroupCpuSeconds(pid_t pgid);

}  // namespace vanon::loadtest

#endif  // VANON_LOADTEST_RELEASE_PROCESS_CPU_H_
