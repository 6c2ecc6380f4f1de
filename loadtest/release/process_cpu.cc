#include "process_cpu.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace vanon::loadtest {

namespace {

// Fields 5 (pgrp), 14 (utime) and 15 (stime) of /proc/PID/stat. The command
// name (field 2) may hold spaces, so fields are counted after its ')'.
bool ReadStat(const std::string& path, long* pgrp, double* cpu_s) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return false;
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream rest(line.substr(close + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; rest >> field; ++i) {
    if (i == 5) *pgrp = std::strtol(field.c_str(), nullptr, 10);
    if (i == 14) utime = std::strtoull(field.c_str(), nullptr, 10);
    if (i == 15) {
      stime = std::strtoull(field.c_str(), nullptr, 10);
      break;
    }
  }
  *cpu_s = static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
  return true;
}

}  // namespace

double ProcessCpuSeconds(pid_t pid) {
  long pgrp = 0;
  double cpu = 0;
  return ReadStat("/proc/" + std::to_string(pid) + "/stat", &pgrp, &cpu) ? cpu : -1;
}

double ProcessPeakRssMb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::strtod(line.c_str() + 6, nullptr) / 1024.0;  // kB
  }
  return -1;
}

double GroupCpuSeconds(pid_t pgid) {
  double total = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    long pgrp = 0;
    double cpu = 0;
    if (ReadStat(entry.path().string() + "/stat", &pgrp, &cpu) && pgrp == pgid) total += cpu;
  }
  return total;
}

}  // namespace vanon::loadtest
