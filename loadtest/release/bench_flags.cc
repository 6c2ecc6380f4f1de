#include "bench_flags.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace vanon::loadtest {

namespace {
bool Number(std::string_view arg, std::string_view name, double* out, bool* bad) {
  std::string prefix = "--" + std::string(name) + "=";
  if (!arg.starts_with(prefix)) return false;
  std::string value(arg.substr(prefix.size()));
  char* end = nullptr;
  *out = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !(*out >= 0)) {
    std::fprintf(stderr, "bad value for --%s: %s\n", std::string(name).c_str(), value.c_str());
    *bad = true;
  }
  return true;
}
}  // namespace

bool ParseBenchFlags(int* argc, char** argv, BenchFlags* f) {
  int kept = 1;
  bool bad = false;
  for (int i = 1; i < *argc; ++i) {
    std::string_view a = argv[i];
    double v = 0;
    if (Number(a, "vehicles", &v, &bad)) {
      f->vehicles = static_cast<uint64_t>(v);
    } else if (Number(a, "rate", &v, &bad)) {
      f->rate = v;
    } else if (Number(a, "duration", &v, &bad)) {
      f->duration_s = v;
    } else if (Number(a, "warmup", &v, &bad)) {
      f->warmup_s = v;
    } else if (Number(a, "partitions", &v, &bad)) {
      f->partitions = static_cast<int>(v);
    } else if (Number(a, "kcat", &v, &bad)) {
      f->kcat = v != 0;
    } else if (Number(a, "restore", &v, &bad)) {
      f->restore = v != 0;
    } else if (Number(a, "readback_nice", &v, &bad)) {
      f->readback_nice = static_cast<int>(v);
    } else if (a.starts_with("--set=")) {
      f->set.emplace_back(a.substr(6));
    } else {
      argv[kept++] = argv[i];
    }
  }
  *argc = kept;
  if (!bad && f->readback_nice > 19) {
    std::fprintf(stderr, "--readback_nice must be 0 to 19\n");
    bad = true;
  }
  if (!bad && (f->vehicles == 0 || f->rate <= 0 || f->duration_s <= 0 || f->partitions < 1)) {
    std::fprintf(stderr, "--vehicles, --rate, --duration and --partitions must be positive\n");
    bad = true;
  }
  return !bad;
}

}  // namespace vanon::loadtest
