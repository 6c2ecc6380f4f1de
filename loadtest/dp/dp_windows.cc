// vanon-dp-windows: RMSE and relative error of per-window DP counts and of
// running totals, before (per-release counts and the binary tree with
// horizon x per-release sensitivity, as DpPublisher does today) and after
// (one count per DP window; running totals as cumulative sums of the
// published window counts), at the same epsilon spent per window. The table
// in docs/dp.md ("DP windows and running totals") comes from this program.
//
// Workload: N vehicles, each in one of 4 cells of a QI (its engine). In each
// window every vehicle starts 0-3 trips (uniform, seeded); the query counts
// trips per cell, C = 4 trips per vehicle and cell, L = 1, so the
// sensitivity of one count is s = 4. The true per-window counts come from
// the library's BoundedCounter (via DpRelease); noise from its exact
// discrete Laplace sampler and TreeCounter (seeded source, for repeatability).
//
// Mechanisms, each spending epsilon per window (so a budget lasts as long):
//   before, window count:  the sum of the E per-release counts of the window's
//                          epochs, each with epsilon / E and sensitivity s;
//   before, running total: TreeCounter over epochs, horizon 2^levels epochs
//                          in the 30-day period, stream sensitivity
//                          horizon x s, epsilon / E (one release's share);
//   after, window count:   one DpRelease per window, epsilon, sensitivity s;
//   after, running total:  the sum of the published window counts
//                          (post-processing, no further epsilon);
//   tree over windows:     for comparison, TreeCounter over windows with the
//                          horizon of a period and stream sensitivity
//                          horizon x s, one window's epsilon.
// "Before" errors are those of the mechanism before clamping (the noise is
// independent of how a window's count splits over its epochs, so each epoch
// gets an equal share of the window's true count).
//
// Usage: vanon-dp-windows [trials (default 40)] [vehicles...]

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "vanon/dp/discrete_laplace.h"
#include "vanon/dp/dp_release.h"
#include "vanon/dp/epsilon.h"
#include "vanon/dp/random_source.h"
#include "vanon/dp/tree_counter.h"
#include "vanon/dp/window_counter.h"

namespace {

using namespace vanon::dp;

constexpr int kWindows = 100;             // running totals are read after this many
constexpr int64_t kEpochSeconds = 60;     // release epoch (the shipped config)
constexpr int64_t kWindowSeconds = 3600;  // DP window
constexpr int64_t kEpochsPerWindow = kWindowSeconds / kEpochSeconds;
constexpr int64_t kPeriodSeconds = 30 * 86400;
constexpr uint64_t kMaxTrips = 4;  // C
const std::vector<std::string> kCells = {"EV", "Gas", "Hybrid", "Diesel"};

DpPlan TripPlan() {
  Dimension engine;
  engine.kind = Dimension::Kind::kQi;
  engine.qi = "engine";
  engine.domain = kCells;
  DpPlan plan;
  plan.counts.push_back(CountQuery{"trips_by_engine", CountUnit::kTrips, {engine}, {}, {kMaxTrips, 1}});
  plan.selection_key = 7;
  return plan;
}

// Largest levels with 2^levels releases of `release_seconds` in a period
// (DpPublisher's rule for the tree horizon).
int HorizonLevels(int64_t release_seconds) {
  int levels = 0;
  while ((int64_t{2} << levels) * release_seconds <= kPeriodSeconds) ++levels;
  return levels;
}

struct Stats {
  double sq = 0, rel = 0;
  uint64_t n = 0;
  void Add(double err, double truth) {
    sq += err * err;
    rel += std::fabs(err) / truth;
    ++n;
  }
  double Rmse() const { return std::sqrt(sq / n); }
  double Rel() const { return rel / n; }
};

struct Row {
  uint64_t vehicles;
  std::string eps;
  Stats win_before, win_after, tot_before, tot_after, tot_tree_windows;
  double win_after_theory, tot_after_theory;
  double mean_window_truth, mean_total_truth;
};

Rational Divide(Rational r, uint64_t k) { return *Rational::Make(r.num, r.den * k); }

Row Measure(uint64_t vehicles, const std::vector<DpRelease>& windows, const std::string& eps_text, int trials,
            SeededRandomSource& rng) {
  const DpPlan& plan = TripPlan();
  (void)plan;
  const Epsilon eps = *Epsilon::Parse(eps_text);
  const uint64_t s = kMaxTrips;
  const size_t cells = kCells.size();
  Row row{vehicles, eps_text, {}, {}, {}, {}, {}, 0, 0, 0, 0};

  // truth[w][c] and cumulative truth after kWindows.
  std::vector<std::vector<int64_t>> truth(windows.size(), std::vector<int64_t>(cells));
  std::vector<int64_t> total(cells, 0);
  double sum_truth = 0;
  for (size_t w = 0; w < windows.size(); ++w) {
    for (size_t c = 0; c < cells; ++c) {
      truth[w][c] = static_cast<int64_t>(windows[w].counters()[0].CountAt(c));
      total[c] += truth[w][c];
      sum_truth += truth[w][c];
    }
  }
  row.mean_window_truth = sum_truth / double(windows.size() * cells);
  row.mean_total_truth = sum_truth / double(cells);

  // After: one DpRelease per window; running total = sum of published counts.
  for (int t = 0; t < trials; ++t) {
    std::vector<int64_t> cum(cells, 0);
    for (size_t w = 0; w < windows.size(); ++w) {
      const DpReleaseResult r = *windows[w].Publish(eps, rng);
      for (size_t c = 0; c < cells; ++c) {
        row.win_after.Add(double(r.records[c].count - truth[w][c]), double(truth[w][c]));
        cum[c] += r.records[c].noisy;  // as the service sums them (unclamped)
      }
    }
    for (size_t c = 0; c < cells; ++c) row.tot_after.Add(double(cum[c] - total[c]), double(total[c]));
  }
  const double v = DiscreteLaplace::ForQuery(s, eps.ToRational())->Variance();
  row.win_after_theory = std::sqrt(v);
  row.tot_after_theory = std::sqrt(v * double(windows.size()));

  // Before, window count: E per-release counts at epsilon / E each.
  const Rational per_release = Divide(eps.ToRational(), kEpochsPerWindow);
  const DiscreteLaplace epoch_noise = *DiscreteLaplace::ForQuery(s, per_release);
  for (int t = 0; t < trials; ++t) {
    for (size_t w = 0; w < windows.size(); ++w) {
      for (size_t c = 0; c < cells; ++c) {
        int64_t noise = 0;
        for (int64_t e = 0; e < kEpochsPerWindow; ++e) noise += epoch_noise.Sample(rng);
        row.win_before.Add(double(noise), double(truth[w][c]));
      }
    }
  }

  // Before, running total: the service's tree over epochs.
  const int epoch_levels = HorizonLevels(kEpochSeconds);
  const uint64_t epoch_stream = (uint64_t{1} << epoch_levels) * s;
  const int tree_trials = trials < 10 ? trials : 10;  // 6,000 releases per cell each
  for (int t = 0; t < tree_trials; ++t) {
    for (size_t c = 0; c < cells; ++c) {
      TreeCounter tree = *TreeCounter::Create(epoch_levels, epoch_stream, per_release);
      for (size_t w = 0; w < windows.size(); ++w) {
        for (int64_t e = 0; e < kEpochsPerWindow; ++e) {
          // An equal share of the window's count per epoch, remainder first.
          const int64_t share = truth[w][c] / kEpochsPerWindow + (e < truth[w][c] % kEpochsPerWindow ? 1 : 0);
          tree.Add(share, rng);
        }
      }
      row.tot_before.Add(double(tree.Current() - total[c]), double(total[c]));
    }
  }

  // Tree over windows (for comparison with the cumulative sum).
  const int window_levels = HorizonLevels(kWindowSeconds);
  const uint64_t window_stream = (uint64_t{1} << window_levels) * s;
  for (int t = 0; t < trials; ++t) {
    for (size_t c = 0; c < cells; ++c) {
      TreeCounter tree = *TreeCounter::Create(window_levels, window_stream, eps.ToRational());
      for (size_t w = 0; w < windows.size(); ++w) tree.Add(truth[w][c], rng);
      row.tot_tree_windows.Add(double(tree.Current() - total[c]), double(total[c]));
    }
  }
  return row;
}

// What one release costs in open-window state (service meta, docs/dp.md "DP
// windows"), one trips query, a window already holding `vehicles` vehicles
// (32-byte keys) and a release whose epoch has `epoch_vehicles` of them:
// before, the whole state read, the epoch added, the whole state written
// (meta dp_window); after, the totals and the epoch's vehicles' records read,
// the epoch added, those written back. Bytes and CPU time of the library
// part; the store's reads and writes come on top (per byte before, per key
// after).
void WindowStateCost(const DpPlan& plan, uint64_t vehicles, uint64_t epoch_vehicles, SeededRandomSource& rng) {
  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
  std::vector<std::string> keys(vehicles);
  std::vector<std::vector<DpEvent>> events(vehicles);
  for (uint64_t v = 0; v < vehicles; ++v) {
    const std::string& cell = kCells[(v * 0x9e3779b97f4a7c15ULL >> 32) % kCells.size()];
    const uint64_t trips = 1 + rng.UniformBelow(3);
    for (uint64_t t = 0; t < trips; ++t)
      events[v].push_back({"", std::string(32, char('a' + t)), "trip_started", 0, {{"engine", cell}}});
    keys[v].assign(32, '\0');
    for (int b = 0; b < 8; ++b) keys[v][b] = static_cast<char>(v >> (8 * b));
  }
  WindowCounter held(plan.counts[0], 0, kWindowSeconds * 1000, plan.selection_key);
  for (uint64_t v = 0; v < vehicles; ++v) held.AddVehicle(keys[v], events[v]);
  const std::string whole = held.Serialize(), totals = held.SerializeTotals();
  std::vector<std::string> records(vehicles);
  for (uint64_t v = 0; v < vehicles; ++v) records[v] = held.SerializeVehicle(keys[v]);
  std::vector<DpEvent> next(1, {"", std::string(32, 'z'), "trip_started", 0, {}});  // one more trip each

  const Clock::time_point t0 = Clock::now();
  WindowCounter before(plan.counts[0], 0, kWindowSeconds * 1000, plan.selection_key);
  bool ok = before.Restore(whole);
  for (uint64_t v = 0; v < epoch_vehicles; ++v) {
    next[0].qi = events[v][0].qi;
    before.AddVehicle(keys[v], next);
  }
  const size_t before_bytes = before.Serialize().size();
  const Clock::time_point t1 = Clock::now();
  WindowCounter after(plan.counts[0], 0, kWindowSeconds * 1000, plan.selection_key);
  ok = ok && after.RestoreTotals(totals);
  size_t after_bytes = 0;
  for (uint64_t v = 0; v < epoch_vehicles; ++v) {
    ok = ok && after.RestoreVehicle(keys[v], records[v]);
    next[0].qi = events[v][0].qi;
    after.AddVehicle(keys[v], next);
    after_bytes += after.SerializeVehicle(keys[v]).size() + 32;
  }
  after_bytes += after.SerializeTotals().size();
  const Clock::time_point t2 = Clock::now();
  ok = ok && after.counter().counts() == before.counter().counts();
  std::printf("| %lu | %lu | %.3f / %.0f | %.3f / %.1f |%s\n", static_cast<unsigned long>(vehicles),
              static_cast<unsigned long>(epoch_vehicles), before_bytes / 1e6, ms(t1 - t0), after_bytes / 1e6,
              ms(t2 - t1), ok ? "" : " MISMATCH");
}

// Per-cell error of one window's count of all vehicles when each of P
// partitions publishes its own noisy count and a consumer sums them, against
// one noisy count of the exact total: what the aggregation partition
// publishes with dp.aggregation.topic (src/service/dp/dp_global_counts.cc sums the
// partitions' exact bounded counts, a vehicle being in one partition, and
// adds noise once).
//
// The error a consumer meets is published - true. Each estimator is
// measured by its mean squared error (MSE) and its variance (MSE minus the
// squared bias, per cell): the sum of the 16 published (clamped) partition
// values, the sum of their unclamped values (the records' "unclamped", what
// docs/dp.md tells a consumer to add), and the global count as published
// (clamped) and unclamped. Clamping a count that is near 0 moves it towards
// the truth but always upwards, so 16 clamped counts add up a bias of the
// same sign. Ratios carry a standard error (delta method over the
// per-sample squared errors).
struct ErrorStats {
  std::vector<double> err, sq, q4;  // per cell: sum of errors, squared, fourth powers
  explicit ErrorStats(size_t cells) : err(cells), sq(cells), q4(cells) {}
  void Add(size_t cell, double e) {
    err[cell] += e;
    sq[cell] += e * e;
    q4[cell] += e * e * e * e;
  }
  double Mse(double n) const { return Sum(sq) / (n * double(sq.size())); }
  double Bias(double n) const { return Sum(err) / (n * double(err.size())); }
  double Variance(double n) const {
    double v = 0;
    for (size_t c = 0; c < sq.size(); ++c) v += sq[c] / n - (err[c] / n) * (err[c] / n);
    return v / double(sq.size());
  }
  // Relative standard error of Mse().
  double RelSe(double n) const {
    const double m = n * double(sq.size()), mse = Sum(sq) / m;
    return std::sqrt((Sum(q4) / m - mse * mse) / m) / mse;
  }
  static double Sum(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s;
  }
};

void PartitionVariance(const DpPlan& plan, uint64_t vehicles, const char* eps_text, int trials,
                       SeededRandomSource& rng) {
  constexpr uint64_t kPartitions = 16;
  const Epsilon eps = *Epsilon::Parse(eps_text);
  DpRelease global(plan, 1, 0, kWindowSeconds * 1000);
  std::vector<DpRelease> parts;
  for (uint64_t p = 0; p < kPartitions; ++p) parts.emplace_back(plan, 1, 0, kWindowSeconds * 1000);
  std::vector<DpEvent> events;
  for (uint64_t v = 0; v < vehicles; ++v) {
    events.clear();
    const std::string& cell = kCells[(v * 0x9e3779b97f4a7c15ULL >> 32) % kCells.size()];
    const uint64_t trips = rng.UniformBelow(4);
    for (uint64_t t = 0; t < trips; ++t)
      events.push_back({"", std::to_string(t), "trip_started", 0, {{"engine", cell}}});
    if (events.empty()) continue;
    const std::string id = "v" + std::to_string(v);
    global.AddVehicle(id, events);
    // The partition from a hash independent of the cell choice above (Kafka
    // hashes the VIN): v % 16 would leave some partitions without a cell.
    uint64_t z = v + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    parts[(z ^ (z >> 31)) % kPartitions].AddVehicle(id, events);
  }
  const size_t cells = kCells.size();
  ErrorStats sum_clamped(cells), sum_raw(cells), global_clamped(cells), global_raw(cells);
  for (int t = 0; t < trials; ++t) {
    const DpReleaseResult g = *global.Publish(eps, rng);
    std::vector<int64_t> clamped(cells, 0), raw(cells, 0);
    for (const DpRelease& p : parts) {
      const DpReleaseResult r = *p.Publish(eps, rng);
      for (size_t c = 0; c < cells; ++c) {
        clamped[c] += r.records[c].count;
        raw[c] += r.records[c].noisy;
      }
    }
    for (size_t c = 0; c < cells; ++c) {
      const double truth = double(global.counters()[0].CountAt(c));
      sum_clamped.Add(c, double(clamped[c]) - truth);
      sum_raw.Add(c, double(raw[c]) - truth);
      global_clamped.Add(c, double(g.records[c].count) - truth);
      global_raw.Add(c, double(g.records[c].noisy) - truth);
    }
  }
  const double n = double(trials);
  auto ratio = [&](const ErrorStats& a, const ErrorStats& b) {
    const double r = a.Mse(n) / b.Mse(n);
    return fmt::format("{:.4g} +- {:.2g}", r, r * std::sqrt(a.RelSe(n) * a.RelSe(n) + b.RelSe(n) * b.RelSe(n)));
  };
  std::printf("| %lu | %s | %.4g (%.3g) / %.4g | %.4g (%.3g) / %.4g | %.4g (%.3g) / %.4g | %s | %s | %.4g |\n",
              static_cast<unsigned long>(vehicles), eps_text, sum_clamped.Mse(n), sum_clamped.Bias(n),
              sum_clamped.Variance(n), sum_raw.Mse(n), sum_raw.Bias(n), sum_raw.Variance(n), global_clamped.Mse(n),
              global_clamped.Bias(n), global_clamped.Variance(n), ratio(global_clamped, sum_raw).c_str(),
              ratio(global_clamped, sum_clamped).c_str(), global_raw.Variance(n) / sum_raw.Variance(n));
}

// kWindows windows of true counts for `vehicles` vehicles.
std::vector<DpRelease> Windows(const DpPlan& plan, uint64_t vehicles, SeededRandomSource& rng) {
  std::vector<DpRelease> windows;
  std::vector<DpEvent> events;
  for (int w = 0; w < kWindows; ++w) {
    const int64_t start = int64_t{w} * kWindowSeconds * 1000;
    DpRelease& release = windows.emplace_back(plan, w + 1, start, start + kWindowSeconds * 1000);
    for (uint64_t v = 0; v < vehicles; ++v) {
      events.clear();
      const std::string& cell = kCells[(v * 0x9e3779b97f4a7c15ULL >> 32) % kCells.size()];
      const uint64_t trips = rng.UniformBelow(4);  // 0-3, mean 1.5
      for (uint64_t t = 0; t < trips; ++t) {
        events.push_back({"", std::to_string(t), "trip_started", start, {{"engine", cell}}});
      }
      if (!events.empty()) release.AddVehicle("v" + std::to_string(v), events);
    }
  }
  return windows;
}

}  // namespace

int main(int argc, char** argv) {
  const int trials = argc > 1 ? std::stoi(argv[1]) : 40;
  std::vector<uint64_t> fleets;
  for (int i = 2; i < argc; ++i) fleets.push_back(std::stoull(argv[i]));
  if (fleets.empty()) fleets = {1'000, 100'000};
  const DpPlan plan = TripPlan();
  SeededRandomSource rng(2026);
  std::vector<Row> rows;
  for (uint64_t n : fleets) {
    const std::vector<DpRelease> windows = Windows(plan, n, rng);
    for (const char* eps : {"0.1", "1", "10"}) rows.push_back(Measure(n, windows, eps, trials, rng));
  }

  std::printf(
      "trips per cell (4 cells), C = %lu, L = 1 (s = %lu); %ld s epochs, %ld s windows (E = %ld), "
      "30-day period; running totals after %d windows; %d trials (10 for the epoch tree)\n",
      static_cast<unsigned long>(kMaxTrips), static_cast<unsigned long>(kMaxTrips), static_cast<long>(kEpochSeconds),
      static_cast<long>(kWindowSeconds), static_cast<long>(kEpochsPerWindow), kWindows, trials);
  std::printf("before tree: 2^%d epochs, stream sensitivity %lu; tree over windows: 2^%d windows, %lu\n\n",
              HorizonLevels(kEpochSeconds),
              static_cast<unsigned long>((uint64_t{1} << HorizonLevels(kEpochSeconds)) * kMaxTrips),
              HorizonLevels(kWindowSeconds),
              static_cast<unsigned long>((uint64_t{1} << HorizonLevels(kWindowSeconds)) * kMaxTrips));
  std::printf(
      "| vehicles | eps / window | true count / window (mean) | window RMSE before / after (theory) "
      "| window rel. error before / after | true total after %d | total RMSE before / after (theory) "
      "/ tree over windows | total rel. error before / after / tree over windows |\n"
      "|---|---|---|---|---|---|---|---|\n",
      kWindows);
  for (const Row& r : rows) {
    std::printf(
        "| %lu | %s | %.0f | %.4g / %.4g (%.4g) | %.3g / %.3g | %.0f | %.4g / %.4g (%.4g) / %.4g "
        "| %.3g / %.3g / %.3g |\n",
        static_cast<unsigned long>(r.vehicles), r.eps.c_str(), r.mean_window_truth, r.win_before.Rmse(),
        r.win_after.Rmse(), r.win_after_theory, r.win_before.Rel(), r.win_after.Rel(), r.mean_total_truth,
        r.tot_before.Rmse(), r.tot_after.Rmse(), r.tot_after_theory, r.tot_tree_windows.Rmse(), r.tot_before.Rel(),
        r.tot_after.Rel(), r.tot_tree_windows.Rel());
  }
  std::printf(
      "\nopen-window state of one query, one release (read, add the epoch, write)\n"
      "| vehicles in the window | vehicles in the epoch | before: whole state MB / ms "
      "| after: totals + epoch's vehicles MB / ms |\n|---|---|---|---|\n");
  for (uint64_t n : fleets) {
    for (uint64_t e : {n, n / 60}) WindowStateCost(plan, n, e, rng);
  }
  std::printf(
      "\nper-cell error of one window's count (P = 16 partitions, %d trials): MSE (bias) / variance\n"
      "| vehicles | eps | sum of 16 published (clamped) | sum of 16 unclamped | global, published "
      "| MSE ratio global / sum unclamped | MSE ratio global / sum clamped | variance ratio, unclamped |\n"
      "|---|---|---|---|---|---|---|---|\n",
      trials * 50);
  for (uint64_t n : fleets) {
    for (const char* eps : {"0.1", "1", "10"}) PartitionVariance(plan, n, eps, trials * 50, rng);
  }
  return 0;
}
