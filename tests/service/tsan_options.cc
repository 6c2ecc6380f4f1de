// ThreadSanitizer options of the concurrency tests, compiled in so that they
// hold however the binaries are started (ctest or by hand).
//
// librdkafka and RocksDB come from Debian, not built with TSan: their atomics
// are invisible to it, so their own accesses (seen through the malloc, free
// and strcmp interceptors) would be reported as races.
// ignore_noninstrumented_modules ignores interceptors called from such
// libraries; vanon's code, the tests and the templates they instantiate are
// all instrumented. tsan_canary.cc shows a race is still reported.
extern "C" const char* __tsan_default_options() {
  return "halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1";
}
