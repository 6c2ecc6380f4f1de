// SIGTERM/SIGINT turn into a flag the main loops poll: the service finishes
// its batch and shuts down cleanly instead of dying mid-write.
#ifndef VANON_SRC_CLI_STOP_SIGNAL_H_
#define VANON_SRC_CLI_STOP_SIGNAL_H_

#include <atomic>

namespace vanon::cli {

// Installs the handlers (idempotent) and returns the flag they set.
std::atomic<bool>& InstallStopSignalHandlers();

}  // namespace vanon::cli

#endif  // VANON_SRC_CLI_STOP_SIGNAL_H_
