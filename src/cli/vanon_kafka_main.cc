// vanon-kafka: a Kafka cluster for tests and manual checks, on 127.0.0.1.
// Prints the bootstrap list as the first line of stdout, then serves until
// SIGTERM/SIGINT.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "stop_signal.h"
#include "vanon/kafka/mock_cluster.h"

int main(int argc, char** argv) {
  CLI::App app{"vanon-kafka: librdkafka mock cluster on loopback"};
  int brokers = 1;
  std::vector<std::string> topics;
  app.add_option("--brokers", brokers, "number of brokers")->check(CLI::Range(1, 9));
  app.add_option("--topic", topics, "NAME:PARTITIONS, repeatable");
  CLI11_PARSE(app, argc, argv);

  std::atomic<bool>& stop = vanon::cli::InstallStopSignalHandlers();
  try {
    vanon::kafka::MockCluster cluster(brokers);
    for (const std::string& t : topics) {
      auto colon = t.rfind(':');
      std::string name = colon == std::string::npos ? t : t.substr(0, colon);
      int parts = colon == std::string::npos ? 1 : std::stoi(t.substr(colon + 1));
      if (name.empty() || parts < 1) throw std::runtime_error("bad --topic " + t);
      cluster.CreateTopic(name, parts);
    }
    std::cout << cluster.Bootstrap() << std::endl;
    while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  } catch (const std::exception& e) {
    std::cerr << "vanon-kafka: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
