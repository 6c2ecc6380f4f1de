// Start-up as an operator meets it: an address already in use, a broker that
// is not there, SIGTERM before the service is ready. Each ends with one clear
// line and an exit code, never an abort or a minute-long wait.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <regex>
#include <thread>

#include "test_support.h"

namespace vanon::service {
namespace {

using testing::Subprocess;
using testing::TempDir;

const std::string kDemoConfig = std::string(VANON_SOURCE_DIR) + "/config/demo.yaml";

// Listens on 127.0.0.1:port for its lifetime (or does nothing when the port
// is already taken by someone else: taken either way).
class PortHolder {
 public:
  explicit PortHolder(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    held_ = bind(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0 && listen(fd_, 1) == 0;
  }
  ~PortHolder() { close(fd_); }
  bool held() const { return held_; }

 private:
  int fd_ = -1;
  bool held_ = false;
};

std::vector<std::string> DemoArgv(const std::string& duration, std::vector<std::string> extra) {
  std::vector<std::string> argv = {VANON_BIN, "demo",       "--config", kDemoConfig, "--duration",
                                   duration,  "--vehicles", "20",       "--rate",    "100"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

// It aborted ("terminate called after throwing ... http: cannot bind").
TEST(StartupIntegration, DemoTakesAFreePortWhenTheDefaultIsTaken) {
  PortHolder hold(9464);
  Subprocess demo(DemoArgv("3", {}), {}, /*capture_stderr=*/true);
  const int rc = demo.Wait(90);
  const std::string out = demo.Output();
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("127.0.0.1:9464 is in use"), std::string::npos) << out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(metrics: http://127\.0\.0\.1:(\d+)/metrics)"))) << out;
  EXPECT_NE(m[1].str(), "9464");
  EXPECT_EQ(out.find("terminate called"), std::string::npos) << out;
}

// An address given with --http is what the user asked for: taken, the demo
// stops with one line and exit 1 (not SIGABRT, 134).
TEST(StartupIntegration, DemoWithATakenExplicitAddressFailsWithOneLine) {
  const int port = testing::FreePort();
  PortHolder hold(port);
  ASSERT_TRUE(hold.held());
  const std::string listen = "127.0.0.1:" + std::to_string(port);
  Subprocess demo(DemoArgv("30", {"--http", listen}), {}, /*capture_stderr=*/true);
  const int rc = demo.Wait(60);
  const std::string out = demo.Output();
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("vanon demo: http: cannot bind " + listen + "\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("terminate called"), std::string::npos) << out;
}

TEST(StartupIntegration, RunWithATakenAddressFailsWithOneLine) {
  const int port = testing::FreePort();
  PortHolder hold(port);
  ASSERT_TRUE(hold.held());
  TempDir state;
  Subprocess run({VANON_BIN, "run", "--config", kDemoConfig, "--set", "state.dir=" + state.path(), "--set",
                  "http.listen=127.0.0.1:" + std::to_string(port)},
                 {"VANON_HMAC_KEY=startup-test-hmac-key-0123456789", testing::kStateKeysEnv}, /*capture_stderr=*/true);
  const int rc = run.Wait(30);
  const std::string out = run.Output();
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("cannot bind 127.0.0.1:" + std::to_string(port)), std::string::npos) << out;
}

// With no broker, init_transactions waits up to 60 s; Kubernetes kills a pod
// 30 s after SIGTERM. The service must stop on SIGTERM while it waits.
TEST(StartupIntegration, SigtermWhileTheBrokerIsUnreachableStopsTheService) {
  const int nobody = testing::FreePort();  // nothing listens there
  TempDir state;
  Subprocess run(
      {VANON_BIN, "run", "--config", kDemoConfig, "--set", "kafka.bootstrap=127.0.0.1:" + std::to_string(nobody),
       "--set", "state.dir=" + state.path(), "--set", "http.listen=127.0.0.1:" + std::to_string(testing::FreePort())},
      {"VANON_HMAC_KEY=startup-test-hmac-key-0123456789", testing::kStateKeysEnv}, /*capture_stderr=*/true);
  ASSERT_TRUE(testing::WaitFor(20, [&] { return run.Output().find("state open") != std::string::npos; }))
      << run.Output();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // now inside init_transactions
  ASSERT_EQ(run.Output().find("release producer ready"), std::string::npos) << run.Output();
  const auto t0 = std::chrono::steady_clock::now();
  run.Signal(SIGTERM);
  // Generous for a loaded CI machine; the old code took the full 60 s.
  const int rc = run.Wait(15);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(rc, 0) << run.Output();
  EXPECT_LT(s, 15.0);
  EXPECT_NE(run.Output().find("stopped during start-up"), std::string::npos) << run.Output();
}

}  // namespace
}  // namespace vanon::service
