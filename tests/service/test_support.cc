#include "test_support.h"

#include <httplib.h>

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace vanon::testing {

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "vanon-test-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

Subprocess::Subprocess(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                       bool capture_stderr) {
  char tmpl[] = "/tmp/vanon-child-XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0) throw std::runtime_error("mkstemp");
  out_path_ = tmpl;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fd, 1);
  if (capture_stderr) posix_spawn_file_actions_adddup2(&fa, fd, 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_store;
  for (char** e = environ; *e != nullptr; ++e) env_store.emplace_back(*e);
  for (const auto& e : extra_env) env_store.push_back(e);
  std::vector<char*> env;
  for (auto& e : env_store) env.push_back(e.data());
  env.push_back(nullptr);
  int rc = posix_spawn(&pid_, args[0], &fa, nullptr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&fa);
  close(fd);
  if (rc != 0) throw std::runtime_error("posix_spawn " + argv[0] + " failed");
}

Subprocess::~Subprocess() {
  if (!exited_ && pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  unlink(out_path_.c_str());
}

std::string Subprocess::Output() const { return ReadFile(out_path_); }

std::string Subprocess::FirstLine(double timeout_s) {
  std::string line;
  WaitFor(timeout_s, [&] {
    std::string out = Output();
    size_t nl = out.find('\n');
    if (nl == std::string::npos) return false;
    line = out.substr(0, nl);
    return true;
  });
  return line;
}

void Subprocess::Signal(int sig) {
  if (!exited_) kill(pid_, sig);
}

int Subprocess::Wait(double timeout_s) {
  if (exited_) return status_;
  bool done = WaitFor(timeout_s, [&] {
    int st = 0;
    if (waitpid(pid_, &st, WNOHANG) != pid_) return false;
    exited_ = true;
    status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return true;
  });
  return done ? status_ : -1;
}

int FreePort() {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  int port = ntohs(a.sin_port);
  close(s);
  return port;
}

bool WaitFor(double timeout_s, const std::function<bool()>& pred) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return pred();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
}

double MetricValue(const std::string& exposition, const std::string& series) {
  std::regex re("(^|\n)" + std::regex_replace(series, std::regex(R"([{}"])"), R"(\$&)") + R"( ([0-9.e+-]+))");
  std::smatch m;
  return std::regex_search(exposition, m, re) ? std::stod(m[2]) : -1;
}

double ScrapeMetric(int port, const std::string& series) {
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(1);
  auto r = c.Get("/metrics");
  if (!r || r->status != 200) return -1;
  return MetricValue(r->body, series);
}

}  // namespace vanon::testing
