#include "service/support/fault_injection.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#ifdef VANON_FAULT_POINTS

namespace vanon::service {

namespace {
struct Target {
  std::string name;
  long hit = 1;
  long seen = 0;
  bool hang = false;  // stop the calling thread for good instead of killing
};

Target* LoadTarget() {
  const char* env = std::getenv("VANON_FAULT_POINT");
  if (env == nullptr || *env == '\0') return nullptr;
  auto* t = new Target;  // lives until the process dies, on purpose
  std::string v(env);
  const std::string kHang = ":hang";
  if (v.size() > kHang.size() && v.compare(v.size() - kHang.size(), kHang.size(), kHang) == 0) {
    t->hang = true;
    v.resize(v.size() - kHang.size());
  }
  size_t at = v.find('@');
  t->name = v.substr(0, at);
  if (at != std::string::npos) t->hit = std::max(1L, std::strtol(v.c_str() + at + 1, nullptr, 10));
  return t;
}

Target* TheTarget() {
  static Target* target = LoadTarget();
  return target;
}

// ShareDeliveryHold's: taken before `mu` by every thread.
std::recursive_mutex& DeliveryMutex() {
  static std::recursive_mutex mu;
  return mu;
}

}  // namespace

void FaultPoint(std::string_view name) {
  Target* target = TheTarget();
  static std::mutex mu;
  if (target == nullptr || name != target->name) return;
  std::unique_lock<std::recursive_mutex> delivery(DeliveryMutex());
  std::unique_lock<std::mutex> l(mu);
  if (++target->seen != target->hit) return;
  std::fprintf(stderr, "vanon: fault injection: %s at %s (hit %ld)\n", target->hang ? "hanging" : "killing",
               target->name.c_str(), target->hit);
  std::fflush(stderr);
  if (!target->hang) std::raise(SIGKILL);
  l.unlock();  // other threads pass their points as before
  delivery.unlock();
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

bool FaultInjectionEnabled() { return TheTarget() != nullptr; }

ShareDeliveryHold::ShareDeliveryHold() : held_(FaultInjectionEnabled()) {
  if (held_) DeliveryMutex().lock();
}

ShareDeliveryHold::~ShareDeliveryHold() {
  if (held_) DeliveryMutex().unlock();
}

bool FaultPointIs(std::string_view name) {
  const Target* target = TheTarget();
  return target != nullptr && target->name == name;
}

namespace {
std::atomic<int> shares_to_corrupt{0};
}  // namespace

void CorruptNextSharesForTesting(int n) { shares_to_corrupt.store(n); }

bool TakeShareCorruption() {
  int n = shares_to_corrupt.load(std::memory_order_relaxed);
  while (n > 0) {
    if (shares_to_corrupt.compare_exchange_weak(n, n - 1)) return true;
  }
  return false;
}

}  // namespace vanon::service

#endif  // VANON_FAULT_POINTS
