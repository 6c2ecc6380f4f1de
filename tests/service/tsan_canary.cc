// A deliberate data race: under ThreadSanitizer this program must be
// reported and exit non-zero (ctest expects it to fail, WILL_FAIL), which
// shows the concurrency pass can fail with the options it runs under.
#include <cstdio>
#include <thread>

namespace {
int shared_counter = 0;  // written by two threads without synchronization
}  // namespace

int main() {
  std::thread a([] {
    for (int i = 0; i < 1000; ++i) ++shared_counter;
  });
  std::thread b([] {
    for (int i = 0; i < 1000; ++i) ++shared_counter;
  });
  a.join();
  b.join();
  std::printf("counter %d\n", shared_counter);
  return 0;
}
