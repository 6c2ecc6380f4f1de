#include "vanon/service/fault_injection.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace vanon {

namespace {
struct Target {
  std::string name;
  long hit = 1;
  long seen = 0;
};

Target* LoadTarget() {
  const char* env = std::getenv("VANON_FAULT_POINT");
  if (env == nullptr || *env == '\0') return nullptr;
  auto* t = new Target;  // lives until the process dies, on purpose
  std::string v(env);
  size_t at = v.find('@');
  t->name = v.substr(0, at);
  if (at != std::string::npos) t->hit = std::max(1L, std::strtol(v.c_str() + at + 1, nullptr, 10));
  return t;
}

Target* TheTarget() {
  static Target* target = LoadTarget();
  return target;
}

}  // namespace

void FaultPoint(std::string_view name) {
  Target* target = TheTarget();
  static std::mutex mu;
  if (target == nullptr) return;
  std::lock_guard<std::mutex> l(mu);
  if (name != target->name || ++target->seen != target->hit) return;
  std::fprintf(stderr, "vanon: fault injection: killing at %s (hit %ld)\n", target->name.c_str(),
               target->hit);
  std::fflush(stderr);
  std::raise(SIGKILL);
}

bool FaultInjectionEnabled() { return TheTarget() != nullptr; }

}  // namespace vanon
