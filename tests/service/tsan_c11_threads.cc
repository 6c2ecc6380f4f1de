// librdkafka starts its threads with C11 thrd_create. GCC's ThreadSanitizer
// runtime does not intercept it (glibc implements it without calling the
// interposable pthread_create), so its threads run without TSan state and
// crash in the first intercepted malloc. Defined in the concurrency test
// binary (and only there), these take precedence over glibc's and go through
// pthread_*, which TSan intercepts: librdkafka's threads are then tracked
// like any other, joins included.
#include <pthread.h>
#include <threads.h>

#include <cerrno>
#include <cstdint>

namespace {
struct Start {
  thrd_start_t func;
  void* arg;
};

void* RunC11Thread(void* p) {
  const Start start = *static_cast<Start*>(p);
  delete static_cast<Start*>(p);
  return reinterpret_cast<void*>(static_cast<intptr_t>(start.func(start.arg)));
}

int C11Result(int rc) { return rc == 0 ? thrd_success : rc == ENOMEM ? thrd_nomem : thrd_error; }
}  // namespace

extern "C" int thrd_create(thrd_t* thr, thrd_start_t func, void* arg) {
  auto* start = new Start{func, arg};
  const int rc = pthread_create(thr, nullptr, RunC11Thread, start);
  if (rc != 0) delete start;
  return C11Result(rc);
}

extern "C" int thrd_join(thrd_t thr, int* res) {
  void* value = nullptr;
  const int rc = pthread_join(thr, &value);
  if (rc == 0 && res != nullptr) *res = static_cast<int>(reinterpret_cast<intptr_t>(value));
  return C11Result(rc);
}

extern "C" int thrd_detach(thrd_t thr) { return C11Result(pthread_detach(thr)); }
