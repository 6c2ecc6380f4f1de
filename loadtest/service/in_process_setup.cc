#include "in_process_setup.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "vanon/vehicle/vin_decoder.h"

namespace vanon::loadtest {

namespace {

double CpuSeconds(int who) {
  rusage u{};
  getrusage(who, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

}  // namespace

double ThreadCpuSeconds() { return CpuSeconds(RUSAGE_THREAD); }

double SelfCpuSeconds() { return CpuSeconds(RUSAGE_SELF); }

int64_t ResidentBytes() {
  long long size = 0, resident = 0;
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return -1;
  const int read = std::fscanf(f, "%lld %lld", &size, &resident);
  std::fclose(f);
  return read == 2 ? static_cast<int64_t>(resident) * sysconf(_SC_PAGESIZE) : -1;
}

config::Config DemoConfigWithEmptyState(const std::string& state_dir, int64_t epoch_ms) {
  std::filesystem::remove_all(state_dir);
  return config::LoadConfig(
      std::string(VANON_SOURCE_DIR) + "/config/demo.yaml",
      {"state.dir=" + state_dir, "privacy.epoch.length_seconds=" + std::to_string(epoch_ms / 1000)});
}

std::unique_ptr<fleet::FleetGenerator> BenchmarkFleet(int64_t start_ms, double events_per_second, uint64_t vehicles) {
  const fleet::VinDecoder table =
      fleet::VinDecoder::Load(std::string(VANON_SOURCE_DIR) + "/config/vehicle/vin-table.yaml");
  fleet::FleetOptions fo;
  fo.vehicles = vehicles;
  fo.events_per_second = events_per_second;
  fo.start_ms = start_ms;
  return std::make_unique<fleet::FleetGenerator>(fo, table);
}

}  // namespace vanon::loadtest
