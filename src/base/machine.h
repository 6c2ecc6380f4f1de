// What the machine offers, for sizing thread pools: vanon is deployed on
// anything from the 2-core target to larger nodes, so counts come from here
// rather than from a constant written for one of them.

#ifndef VANON_SRC_BASE_MACHINE_H_
#define VANON_SRC_BASE_MACHINE_H_

#include <thread>

namespace vanon::base {

// Hardware threads this process may use (std::thread::hardware_concurrency);
// 2, the target machine's count, when the system does not tell.
inline int HardwareThreads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 2 : static_cast<int>(n);
}

}  // namespace vanon::base

#endif  // VANON_SRC_BASE_MACHINE_H_
