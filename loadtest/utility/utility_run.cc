// Long-run utility benchmark (docs/utility.md): one drifting fleet, release
// after release, through the current pipeline (per-epoch `mode`, missing
// value, signatures from one epoch) and the history-aware one side by side,
// every release of every pipeline checked by the independent checker.
//
//   vanon-utility-run [--releases=200] [--vehicles=2000] [--m=5,10]
//       [--drift=0.05] [--shape=repertoire|global] [--missing=0.10]
//       [--active=0.9] [--window=6] [--history-slots=6]
//       [--min-share=0.04] [--learn-events=10] [--learn-delay=3]
//       [--repertoire=4] [--renew=0.2] [--values=30] [--every=20]
//       [--horizon=0]   (> 0 adds a pipeline: history + that horizon)
//       [--shared=0 --shared-size=0]   (> 0 adds a pipeline: window, learning
//                       and that many shared signatures of that size)
//       [--seed=1] [--csv=FILE]
//
// Prints a table every `--every` releases and the goals at the last one;
// the CSV (one row per release, pipeline and m) feeds plot_utility.py.
// Exit 1 when the checker finds a violation.
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "drifting_fleet.h"
#include "pipeline.h"

namespace {

using namespace vanon;
using namespace vanon::utility;

std::map<std::string, std::string> ParseFlags(int argc, char** argv) {
  std::map<std::string, std::string> flags;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0 || a.find('=') == std::string::npos) {
      std::fprintf(stderr, "usage: flags are --name=value (%s)\n", a.c_str());
      std::exit(2);
    }
    flags[a.substr(2, a.find('=') - 2)] = a.substr(a.find('=') + 1);
  }
  return flags;
}

std::vector<uint32_t> ParseList(const std::string& s) {
  std::vector<uint32_t> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = s.find(',', start);
    out.push_back(static_cast<uint32_t>(std::stoul(s.substr(start, comma - start))));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// Per pipeline at the last release: signature buckets, whole-run totals, and
// the goals against the current pipeline.
void PrintSummary(const std::vector<std::unique_ptr<Pipeline>>& pipelines, const std::vector<ReleaseRow>& last,
                  const std::vector<std::array<uint64_t, 3>>& run, uint32_t releases, uint32_t m) {
  for (size_t p = 0; p < pipelines.size(); ++p) {
    // docs/utility.md section 2b: only buckets larger than their signature
    // can absorb an absent member without a counterfeit.
    std::printf(
        "buckets at release %u, %-8s: %.2f vehicles per signature value, %.3f of vehicles in a "
        "bucket larger than its signature\n",
        releases, pipelines[p]->name().c_str(), last[p].vehicles_per_slot, last[p].shared);
  }
  for (size_t p = 0; p < pipelines.size(); ++p) {
    std::printf("whole run, %-8s: %.3f of %llu tuples suppressed, counterfeit ratio %.3f\n",
                pipelines[p]->name().c_str(), 1.0 - static_cast<double>(run[p][1]) / static_cast<double>(run[p][0]),
                static_cast<unsigned long long>(run[p][0]),
                static_cast<double>(run[p][2]) / static_cast<double>(run[p][1] + run[p][2]));
  }
  // Goals (issue 16) at the last release, each pipeline against current.
  const ReleaseRow& cur = last.front();
  for (size_t p = 1; p < pipelines.size(); ++p) {
    const ReleaseRow& now = last[p];
    std::printf(
        "goals at release %u, m = %u (%s vs %s): suppression %.3f <= %.3f (a third of %.3f): %s; "
        "counterfeits %.3f <= 0.25: %s; NCP %.3f <= %.3f (1.2x %.3f): %s\n",
        releases, m, pipelines[p]->name().c_str(), pipelines.front()->name().c_str(), now.suppression,
        cur.suppression / 3, cur.suppression, now.suppression <= cur.suppression / 3 ? "met" : "NOT met",
        now.counterfeit_ratio, now.counterfeit_ratio <= 0.25 ? "met" : "NOT met", now.ncp, 1.2 * cur.ncp, cur.ncp,
        now.ncp <= 1.2 * cur.ncp ? "met" : "NOT met");
  }
}

}  // namespace

int main(int argc, char** argv) {
  auto flags = ParseFlags(argc, argv);
  auto get = [&](const char* name, const char* fallback) {
    auto it = flags.find(name);
    return it == flags.end() ? std::string(fallback) : it->second;
  };
  FleetParams fleet;
  fleet.vehicles = static_cast<uint32_t>(std::stoul(get("vehicles", "2000")));
  fleet.drift = std::stod(get("drift", "0.05"));
  fleet.shape = ParseShape(get("shape", "repertoire"));
  fleet.missing = std::stod(get("missing", "0.10"));
  fleet.active = std::stod(get("active", "0.9"));
  fleet.values = static_cast<uint32_t>(std::stoul(get("values", "30")));
  fleet.seed = std::stoull(get("seed", "1"));
  fleet.repertoire = static_cast<uint32_t>(std::stoul(get("repertoire", "4")));
  fleet.renew = std::stod(get("renew", "0.2"));
  const uint32_t releases = static_cast<uint32_t>(std::stoul(get("releases", "200")));
  const uint32_t every = static_cast<uint32_t>(std::stoul(get("every", "20")));
  PipelineOptions options;
  options.window = static_cast<uint32_t>(std::stoul(get("window", "6")));
  options.history_slots = static_cast<uint32_t>(std::stoul(get("history-slots", "6")));
  options.learn_events = static_cast<uint32_t>(std::stoul(get("learn-events", "10")));
  options.min_share = std::stod(get("min-share", "0.04"));
  options.horizon = std::stoull(get("horizon", "0"));
  options.learn_delay = static_cast<uint32_t>(std::stoul(get("learn-delay", "3")));
  options.shared = static_cast<uint32_t>(std::stoul(get("shared", "0")));
  options.shared_size = static_cast<uint32_t>(std::stoul(get("shared-size", "0")));
  const std::string csv_path = get("csv", "");

  std::ofstream csv;
  if (!csv_path.empty()) {
    csv.open(csv_path);
    csv << "m,pipeline,release,suppression,conflict,delay,ineligible,counterfeit_ratio,ncp,"
           "min_real,groups,published,violations,vehicles_per_slot,shared\n";
  }
  std::printf("fleet: %u vehicles, %u values, drift %.3f (%s), missing %.2f, active %.2f, seed %llu\n", fleet.vehicles,
              fleet.values, fleet.drift, get("shape", "repertoire").c_str(), fleet.missing, fleet.active,
              static_cast<unsigned long long>(fleet.seed));
  uint64_t violations = 0;
  for (uint32_t m : ParseList(get("m", "5,10"))) {
    DriftingFleet stream(fleet);
    std::vector<std::unique_ptr<Pipeline>> pipelines = MakePipelines(m, options, fleet.values, fleet.vehicles);
    std::printf("\nm = %u\n%-8s %-8s %11s %9s %7s %10s %12s %8s %8s\n", m, "release", "pipeline", "suppression",
                "conflict", "delay", "ineligible", "counterfeits", "NCP", "min real");
    std::vector<ReleaseRow> last(pipelines.size());
    // Over the whole run: tuples, published real tuples, counterfeits.
    std::vector<std::array<uint64_t, 3>> run(pipelines.size(), {0, 0, 0});
    for (uint32_t r = 1; r <= releases; ++r) {
      const std::vector<EpochActivity> epoch = stream.NextEpoch();
      for (size_t p = 0; p < pipelines.size(); ++p) {
        const ReleaseRow row = pipelines[p]->Release(r, epoch, stream);
        violations += row.violations;
        for (const std::string& v : pipelines[p]->last_violations()) std::fprintf(stderr, "%s\n", v.c_str());
        last[p] = row;
        run[p][0] += row.tuples;
        run[p][1] += row.published;
        run[p][2] += row.counterfeits;
        if (csv.is_open()) {
          csv << m << ',' << pipelines[p]->name() << ',' << r << ',' << row.suppression << ',' << row.conflict << ','
              << row.delay << ',' << row.ineligible << ',' << row.counterfeit_ratio << ',' << row.ncp << ','
              << row.min_real << ',' << row.groups << ',' << row.published << ',' << row.violations << ','
              << row.vehicles_per_slot << ',' << row.shared << '\n';
        }
        if (r % every == 0 || r == 1 || r == releases) {
          std::printf("%-8u %-8s %11.3f %9.3f %7.3f %10.3f %12.3f %8.3f %8llu\n", r, pipelines[p]->name().c_str(),
                      row.suppression, row.conflict, row.delay, row.ineligible, row.counterfeit_ratio, row.ncp,
                      static_cast<unsigned long long>(row.min_real));
        }
      }
    }
    PrintSummary(pipelines, last, run, releases, m);
  }
  std::printf("\nchecker violations over every release of every pipeline: %llu\n",
              static_cast<unsigned long long>(violations));
  return violations == 0 ? 0 : 1;
}
