// vanon-soak: a deployment's life compressed into one run, on the mock
// cluster (vanon-kafka) with the real `vanon run`. Three instances consume a
// fleet streamed at a steady rate (event time = wall time); they start
// without the state changelog, are upgraded midway (all stopped, all started
// with it on: each seeds the changelog from its state at start-up), and from
// then on one instance is killed (SIGKILL) or started every 20-60 s at
// random, sometimes with an empty state dir. At the end every instance is
// started, everything is released, and an independent check reads the
// output topics (read_committed, as a downstream consumer would) and the
// state of the last owner of each partition:
//   - every release share once (a share published twice must be the same
//     bytes: the mock cluster shows aborted attempts too);
//   - every input event published at most once, with one content;
//   - one signature per vehicle across all releases and instances;
//   - DP counts of each release drawn once;
//   - every input message consumed once and accounted for (released +
//     suppressed + late + rejected), and the events the state says were
//     released are the events the topic holds;
//   - no topic truncated by the mock's retention.
// The report (markdown) goes to --report. Not a test: not in CI.
#include <signal.h>
#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "fleet_feed.h"
#include "ground_truth.h"
#include "lifecycle_support.h"
#include "output_audit.h"
#include "test_support.h"
#include "vanon/fleet/fleet_generator.h"
#include "vanon/kafka/producer.h"
#include "vanon/state/state_store.h"
#include "vanon/vehicle/vin_decoder.h"

namespace vanon {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  double minutes = 30;
  double rate = 25;  // messages per second
  uint64_t vehicles = 300;
  int partitions = 6;
  double upgrade_at = 0.5;  // fraction of the run without the changelog
  int min_gap_s = 20, max_gap_s = 60;
  uint64_t seed = 1;
  std::string work;
  std::string report;
};

double Since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The fleet at `rate` messages per second of wall and event time, each valid
// event's payload carrying a unique seq (kept by the instances' payload
// config), in its own thread until stopped.
class Feed {
 public:
  Feed(const std::string& bootstrap, const Options& o) : bootstrap_(bootstrap), o_(o) {}
  void Run(const std::atomic<bool>& stop) {
    fleet::VinDecoder table = fleet::VinDecoder::Load(std::string(VANON_SOURCE_DIR) + "/config/vehicle/vin-table.yaml");
    fleet::FleetOptions fo;
    fo.vehicles = o_.vehicles;
    fo.seed = o_.seed;
    fo.invalid_fraction = 0.02;
    fo.events_per_second = o_.rate;
    fo.max_message_bytes = 16384;
    fo.start_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    fleet::FleetGenerator gen(fo, table);
    kafka::Producer producer(bootstrap_, {}, {}, {{"message.max.bytes", "4000000"}});
    const auto t0 = Clock::now();
    uint64_t sent = 0;
    while (!stop.load()) {
      const uint64_t due = static_cast<uint64_t>(Since(t0) * o_.rate);
      for (; sent < due; ++sent) {
        const fleet::FleetMessage& m = gen.Next();
        std::string value = m.value;
        if (!m.expected_reject && e2e::InsertSeq(&value, ++seq)) vin_of_seq[seq] = m.key;
        producer.Produce("vehicle.events.raw", -1, m.key, value);
      }
      producer.Flush(10000);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    if (!producer.Flush(60000) || producer.failures() != 0) throw std::runtime_error("feed: delivery failed");
    total = sent;
  }
  std::map<uint64_t, std::string> vin_of_seq;
  uint64_t seq = 0;
  uint64_t total = 0;

 private:
  std::string bootstrap_;
  Options o_;
};

// One of the three slots an instance runs in: its id, its current state
// dir, and every state dir it ever had (for the final accounting).
struct Slot {
  std::string name;
  std::string dir;
  std::vector<std::string> dirs;
  int port = 0;
  std::unique_ptr<testing::Subprocess> proc;
  std::string logs;  // of its earlier processes
};

struct Counts {
  int kills = 0, starts = 0, fresh_dirs = 0, exits = 0;
  double max_lag = 0;
  double upgrade_at_s = 0;
};

class Soak {
 public:
  explicit Soak(Options o) : o_(std::move(o)), rng_(o_.seed) {}
  int Run();

 private:
  std::vector<std::string> Sets(bool changelog) const;
  void Start(Slot& s, bool changelog);
  void Stop(Slot& s, int sig);
  bool Running(Slot& s);
  void Chaos(double until_s, const Clock::time_point& t0);
  void Scrape();
  bool AllSettled();
  std::string Check(const testing::OutputAudit& a, bool* pass);
  std::string Accounting(const testing::OutputAudit& a, bool* pass);
  std::string RestoreStats();

  Options o_;
  std::mt19937_64 rng_;
  std::string bootstrap_;
  std::vector<Slot> slots_;
  Counts counts_;
  std::unique_ptr<Feed> feed_;
};

std::vector<std::string> Soak::Sets(bool) const {
  // 10 s epochs keep the changelog (which the mock neither compacts nor
  // keeps beyond about 5 MB a partition) small over half an hour.
  return {"privacy.epoch.length_seconds=10", "privacy.epoch.allowed_lateness_seconds=2",
          "privacy.epoch.idle_timeout_seconds=5"};
}

void Soak::Start(Slot& s, bool changelog) {
  testing::InstanceOptions io{bootstrap_, s.name, s.dir, s.port, changelog, Sets(changelog), {}};
  s.proc = testing::StartInstance(io);
  ++counts_.starts;
  std::cout << "[" << s.name << "] started" << (changelog ? "" : " (changelog off)") << " on " << s.dir << std::endl;
}

void Soak::Stop(Slot& s, int sig) {
  if (!s.proc) return;
  s.proc->Signal(sig);
  const int rc = s.proc->Wait(120);
  s.logs += s.proc->Output();
  std::cout << "[" << s.name << "] stopped (signal " << sig << ", exit " << rc << ")" << std::endl;
  s.proc.reset();
}

// An instance may exit by itself (a refused partition: exit 1); its slot is
// then free for the next start, as a pod's restart would be.
bool Soak::Running(Slot& s) {
  if (!s.proc) return false;
  const int rc = s.proc->Wait(0);
  if (rc < 0) return true;
  s.logs += s.proc->Output();
  std::cout << "[" << s.name << "] exited by itself with " << rc << std::endl;
  ++counts_.exits;
  s.proc.reset();
  return false;
}

void Soak::Scrape() {
  for (Slot& s : slots_) {
    if (!Running(s)) continue;
    counts_.max_lag =
        std::max(counts_.max_lag, testing::ScrapeMetric(s.port, "vanon_consumer_lag_messages{stat=\"sum\"}"));
  }
}

// Every 20-60 s: with all three up, kill one; with none up, start one;
// otherwise either, at random. A third of the starts get an empty state dir.
void Soak::Chaos(double until_s, const Clock::time_point& t0) {
  std::uniform_int_distribution<int> gap(o_.min_gap_s, o_.max_gap_s);
  while (Since(t0) < until_s) {
    const double next = Since(t0) + gap(rng_);
    while (Since(t0) < std::min(next, until_s)) {
      Scrape();
      std::this_thread::sleep_for(std::chrono::seconds(5));
    }
    if (Since(t0) >= until_s) break;
    std::vector<Slot*> up, down;
    for (Slot& s : slots_) (Running(s) ? up : down).push_back(&s);
    const bool kill = down.empty() || (!up.empty() && rng_() % 2 == 0);
    if (kill) {
      Slot& s = *up[rng_() % up.size()];
      Stop(s, SIGKILL);
      ++counts_.kills;
    } else {
      Slot& s = *down[rng_() % down.size()];
      if (rng_() % 3 == 0) {
        s.dir = o_.work + "/" + s.name + "-" + std::to_string(s.dirs.size());
        s.dirs.push_back(s.dir);
        ++counts_.fresh_dirs;
      }
      Start(s, true);
    }
  }
}

bool Soak::AllSettled() {
  double assigned = 0;
  for (Slot& s : slots_) {
    if (!Running(s)) return false;
    assigned += testing::ScrapeMetric(s.port, "vanon_partitions_assigned");
    if (!testing::Settled(s.port)) return false;
  }
  return assigned == o_.partitions;
}

int Soak::Run() {
  mkdir(o_.work.c_str(), 0755);
  auto kafka = testing::StartLifecycleKafka(o_.partitions, 8, &bootstrap_);
  if (bootstrap_.empty()) throw std::runtime_error("vanon-kafka did not start");
  for (int i = 0; i < 3; ++i) {
    Slot s;
    s.name = "soak-" + std::to_string(i);
    s.dir = o_.work + "/" + s.name + "-0";
    s.dirs = {s.dir};
    s.port = testing::FreePort();
    slots_.push_back(std::move(s));
  }
  feed_ = std::make_unique<Feed>(bootstrap_, o_);
  std::atomic<bool> stop_feed{false};
  std::exception_ptr feed_error;
  std::thread feeder([&] {
    try {
      feed_->Run(stop_feed);
    } catch (...) {
      feed_error = std::current_exception();
    }
  });
  const auto t0 = Clock::now();
  const double total_s = o_.minutes * 60;

  // Without the changelog the instances must not move partitions (state
  // would be lost: that is what the changelog is for), so no chaos yet.
  for (Slot& s : slots_) Start(s, false);
  while (Since(t0) < total_s * o_.upgrade_at) {
    Scrape();
    std::this_thread::sleep_for(std::chrono::seconds(5));
  }
  // The upgrade: every instance stopped, every one started with the changelog.
  counts_.upgrade_at_s = Since(t0);
  for (Slot& s : slots_) Stop(s, SIGTERM);
  for (Slot& s : slots_) Start(s, true);
  Chaos(total_s, t0);

  stop_feed = true;
  feeder.join();
  if (feed_error) std::rethrow_exception(feed_error);
  for (Slot& s : slots_) {
    if (!Running(s)) Start(s, true);
  }
  const auto drain0 = Clock::now();
  while (!AllSettled() && Since(drain0) < 600) {
    for (Slot& s : slots_) {
      if (!Running(s)) Start(s, true);
    }
    std::this_thread::sleep_for(std::chrono::seconds(5));
  }
  const double drain_s = Since(drain0);
  for (Slot& s : slots_) Stop(s, SIGTERM);

  const testing::OutputAudit audit = testing::AuditOutputs(bootstrap_, feed_->vin_of_seq);
  bool pass = true;
  std::ostringstream r;
  std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  r << "# Soak: three instances, kills and starts, changelog upgrade midway\n\n"
    << "Run " << date << ". Command: `build/loadtest/soak/vanon-soak --minutes " << o_.minutes << " --rate " << o_.rate
    << " --vehicles " << o_.vehicles << " --partitions " << o_.partitions << " --upgrade-at " << o_.upgrade_at
    << " --seed " << o_.seed << "`\n\n"
    << "| what | value |\n|---|---|\n"
    << "| run | " << total_s / 60 << " min of input at " << o_.rate << " messages/s, " << feed_->total << " messages, "
    << o_.vehicles << " vehicles, " << o_.partitions << " input partitions |\n"
    << "| upgrade (changelog off -> on, all three restarted) | at " << counts_.upgrade_at_s << " s |\n"
    << "| kills (SIGKILL) / starts / of them with an empty state dir | " << counts_.kills << " / " << counts_.starts
    << " / " << counts_.fresh_dirs << " |\n"
    << "| instances that exited by themselves | " << counts_.exits << " |\n"
    << "| drain after the input stopped | " << drain_s << " s |\n"
    << "| max consumer lag seen (sum over an instance's partitions) | " << counts_.max_lag << " messages |\n"
    << RestoreStats() << "\n"
    << "## Independent check\n\n"
    << Check(audit, &pass) << Accounting(audit, &pass) << "\n**" << (pass ? "PASS" : "FAIL") << "**\n";
  std::cout << r.str();
  if (!o_.report.empty()) std::ofstream(o_.report) << r.str();
  if (!pass) {
    for (Slot& s : slots_) std::ofstream(o_.work + "/" + s.name + ".log") << s.logs;
  }
  return pass ? 0 : 1;
}

// Rebalances, restores and seeds, from every instance's log.
std::string Soak::RestoreStats() {
  static const std::regex kRestored(R"(state restored from the changelog \(changelog read from offset \d+: (\d+) )"
                                    R"(records, \d+ keys, ([0-9.]+) s\))");
  int revokes = 0, seeds = 0, refusals = 0, up_to_date = 0;
  std::vector<double> seconds;
  uint64_t records = 0;
  for (Slot& s : slots_) {
    std::istringstream in(s.logs);
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      if (line.find("partitions revoked") != std::string::npos) ++revokes;
      if (line.find("records written to the changelog") != std::string::npos) ++seeds;
      if (line.find("has published releases") != std::string::npos) ++refusals;
      if (line.find("local state is up to date with the changelog") != std::string::npos) ++up_to_date;
      if (std::regex_search(line, m, kRestored)) {
        records += std::stoull(m[1].str());
        seconds.push_back(std::stod(m[2].str()));
      }
    }
  }
  std::sort(seconds.begin(), seconds.end());
  std::ostringstream o;
  o << "| rebalances (revocations logged) | " << revokes << " |\n"
    << "| partitions restored from the changelog | " << seconds.size() << " (" << records << " records) |\n";
  if (!seconds.empty()) {
    o << "| restore time, median / max | " << seconds[seconds.size() / 2] << " / " << seconds.back() << " s |\n";
  }
  o << "| partitions kept (up to date) / seeded from local state / refused until their holder seeded | " << up_to_date
    << " / " << seeds << " / " << refusals << " |\n";
  return o.str();
}

std::string Line(const char* what, size_t got, bool ok, bool* pass) {
  *pass = *pass && ok;
  std::ostringstream o;
  o << "- " << (ok ? "ok" : "FAILED") << ": " << what << ": " << got << "\n";
  return o.str();
}

std::string Soak::Check(const testing::OutputAudit& a, bool* pass) {
  std::ostringstream o;
  o << "Output (read_committed; the mock cluster also shows aborted attempts): " << a.Describe() << "\n\n";
  o << Line("release shares published with two different contents", a.shares_differing, a.shares_differing == 0, pass)
    << Line("events published with two different contents", a.events_differing, a.events_differing == 0, pass)
    << Line("events whose group record never went out", a.events_without_group, a.events_without_group == 0, pass)
    << Line("vehicles under more than one signature", a.vehicles_two_signatures, a.vehicles_two_signatures == 0, pass)
    << Line("releases whose DP counts differ between attempts", a.dp_differing, a.dp_differing == 0, pass)
    << Line("events without a known seq", a.events_without_seq, a.events_without_seq == 0, pass);
  for (const char* topic : {"vehicle.events.raw", "vanon.state.changelog"}) {
    const int64_t low = testing::SumLowWatermarks(bootstrap_, topic, o_.partitions);
    o << Line((std::string("low watermarks of ") + topic + " (0: nothing truncated)").c_str(), static_cast<size_t>(low),
              low == 0, pass);
  }
  const int64_t low = testing::SumLowWatermarks(bootstrap_, "vehicle.events.anonymized", 8);
  o << Line("low watermarks of vehicle.events.anonymized", static_cast<size_t>(low), low == 0, pass);
  return o.str();
}

// Per partition, the state of the instance that released it last (the
// newest committed release over every state dir any slot had).
std::string Soak::Accounting(const testing::OutputAudit& a, bool* pass) {
  std::vector<std::unique_ptr<state::StateStore>> stores;
  for (const Slot& s : slots_) {
    for (const std::string& d : s.dirs) stores.push_back(state::StateStore::Open(d));
  }
  uint64_t consumed = 0, accounted = 0, released = 0;
  for (int32_t p = 0; p < o_.partitions; ++p) {
    const state::StateStore* owner = nullptr;
    int64_t newest = INT64_MIN;
    for (const auto& st : stores) {
      st->ScanReleasesNewestFirst(p, [&](int64_t id, const state::ReleaseLogEntry& e) {
        if (e.status != state::ReleaseStatus::kCommitted) return true;
        if (id > newest) {
          newest = id;
          owner = st.get();
        }
        return false;
      });
    }
    if (owner == nullptr) continue;
    const state::PartitionProgress pr = owner->LoadProgress(p);
    consumed += pr.consumed;
    accounted += pr.released + pr.suppressed + pr.late + pr.rejected_total();
    released += pr.released;
  }
  std::ostringstream o;
  o << Line("messages produced", feed_->total, true, pass)
    << Line("messages consumed (last owners' state)", consumed, consumed == feed_->total, pass)
    << Line("released + suppressed + late + rejected", accounted, accounted == consumed, pass)
    << Line("events released per state", released, released == a.events, pass)
    << Line("distinct events on vehicle.events.anonymized", a.events, released == a.events, pass);
  return o.str();
}

}  // namespace
}  // namespace vanon

int main(int argc, char** argv) {
  vanon::Options o;
  CLI::App app{"vanon-soak: three vanon run instances, kills, starts and a changelog upgrade"};
  app.add_option("--minutes", o.minutes, "length of the input stream");
  app.add_option("--rate", o.rate, "messages per second");
  app.add_option("--vehicles", o.vehicles, "fleet size");
  app.add_option("--partitions", o.partitions, "input partitions");
  app.add_option("--upgrade-at", o.upgrade_at, "fraction of the run before the changelog is turned on");
  app.add_option("--seed", o.seed, "fleet and chaos seed");
  app.add_option("--work", o.work, "directory for the state dirs")->required();
  app.add_option("--report", o.report, "markdown report to write");
  CLI11_PARSE(app, argc, argv);
  try {
    return vanon::Soak(o).Run();
  } catch (const std::exception& e) {
    std::cerr << "vanon-soak: " << e.what() << std::endl;
    return 2;
  }
}
