// Long-run utility benchmark (docs/utility.md): one drifting fleet, release
// after release, through the service's release path under each privacy
// preset (ComputeShare over an in-memory state, exactly what `vanon run`
// computes with config/vanon.yaml and `--set privacy.preset=P`), and
// optionally through pure-engine pipelines for comparison. A sequence
// checker sees every release of every pipeline.
//
//   vanon-utility-run [--config=config/vanon.yaml] [--presets=epoch,window,history,shared]
//       [--set=KEY=VALUE ...] [--engine=0|1] [--releases=200] [--report=12,50,200]
//       [--vehicles=2000] [--m=5,10] [--drift=0.05] [--shape=repertoire|global]
//       [--missing=0.10] [--active=0.9] [--repertoire=4] [--renew=0.2] [--values=30]
//       [--seed=1] [--every=20] [--csv=FILE] [--oracle-state=FILE]
//   engine pipelines (--engine=1): [--window=6] [--history-slots=6] [--min-share=0.04]
//       [--learn-events=10] [--learn-delay=3] [--horizon=0] [--shared=0 --shared-size=0]
//
// --oracle-state writes what the generator hides (each vehicle's favourite
// and repertoire, and whether it is active) at release 3 and at the
// --report releases, for oracle_bound.py --state (the same stream).
// Exit 1 when a checker finds a violation.
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "drifting_fleet.h"
#include "pipeline.h"
#include "service_pipeline.h"

namespace {

using namespace vanon;
using namespace vanon::utility;

struct Flags {
  std::map<std::string, std::string> values;
  std::vector<std::string> sets;  // every --set
  std::string Get(const char* name, const char* fallback) const {
    auto it = values.find(name);
    return it == values.end() ? std::string(fallback) : it->second;
  }
};

Flags ParseFlags(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0 || a.find('=') == std::string::npos) {
      std::fprintf(stderr, "usage: flags are --name=value (%s)\n", a.c_str());
      std::exit(2);
    }
    const std::string name = a.substr(2, a.find('=') - 2), value = a.substr(a.find('=') + 1);
    if (name == "set") {
      flags.sets.push_back(value);
    } else {
      flags.values[name] = value;
    }
  }
  return flags;
}

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = s.find(',', start);
    std::string part = s.substr(start, comma - start);
    if (!part.empty()) out.push_back(part);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

FleetParams FleetFromFlags(const Flags& f) {
  FleetParams fleet;
  fleet.vehicles = static_cast<uint32_t>(std::stoul(f.Get("vehicles", "2000")));
  fleet.drift = std::stod(f.Get("drift", "0.05"));
  fleet.shape = ParseShape(f.Get("shape", "repertoire"));
  fleet.missing = std::stod(f.Get("missing", "0.10"));
  fleet.active = std::stod(f.Get("active", "0.9"));
  fleet.values = static_cast<uint32_t>(std::stoul(f.Get("values", "30")));
  fleet.seed = std::stoull(f.Get("seed", "1"));
  fleet.repertoire = static_cast<uint32_t>(std::stoul(f.Get("repertoire", "4")));
  fleet.renew = std::stod(f.Get("renew", "0.2"));
  return fleet;
}

PipelineOptions EngineOptions(const Flags& f) {
  PipelineOptions options;
  options.window = static_cast<uint32_t>(std::stoul(f.Get("window", "6")));
  options.history_slots = static_cast<uint32_t>(std::stoul(f.Get("history-slots", "6")));
  options.learn_events = static_cast<uint32_t>(std::stoul(f.Get("learn-events", "10")));
  options.min_share = std::stod(f.Get("min-share", "0.04"));
  options.horizon = std::stoull(f.Get("horizon", "0"));
  options.learn_delay = static_cast<uint32_t>(std::stoul(f.Get("learn-delay", "3")));
  options.shared = static_cast<uint32_t>(std::stoul(f.Get("shared", "0")));
  options.shared_size = static_cast<uint32_t>(std::stoul(f.Get("shared-size", "0")));
  return options;
}

std::vector<std::unique_ptr<UtilityPipeline>> MakeAll(const Flags& f, uint32_t m, const FleetParams& fleet) {
  std::vector<std::unique_ptr<UtilityPipeline>> out;
  const std::string file = f.Get("config", VANON_SOURCE_DIR "/config/vanon.yaml");
  for (const std::string& preset : Split(f.Get("presets", "epoch,window,history,shared"))) {
    std::vector<std::string> overrides = {"privacy.preset=" + preset, "privacy.m=" + std::to_string(m)};
    overrides.insert(overrides.end(), f.sets.begin(), f.sets.end());
    out.push_back(std::make_unique<ServicePipeline>(preset, ServiceConfig(file, overrides)));
  }
  if (f.Get("engine", "0") == "1") {
    for (auto& p : MakePipelines(m, EngineOptions(f), fleet.values, fleet.vehicles)) out.push_back(std::move(p));
  }
  return out;
}

// One line per vehicle: release, vehicle, active, favourite, repertoire.
void DumpState(std::ofstream& out, uint32_t release, const DriftingFleet& fleet,
               const std::vector<EpochActivity>& epoch) {
  std::vector<bool> active(fleet.params().vehicles, false);
  for (const EpochActivity& a : epoch) active[a.vehicle] = true;
  for (uint32_t v = 0; v < fleet.params().vehicles; ++v) {
    out << release << ',' << v << ',' << (active[v] ? 1 : 0) << ',' << fleet.favourite(v) << ',';
    const auto& rep = fleet.repertoire(v);
    for (size_t i = 0; i < rep.size(); ++i) out << (i ? ";" : "") << rep[i];
    out << '\n';
  }
}

struct RunTotals {
  uint64_t tuples = 0, published = 0, counterfeits = 0;
};

void PrintRow(uint32_t r, const std::string& name, const ReleaseRow& row) {
  std::printf("%-8u %-16s %11.3f %9.3f %7.3f %10.3f %12.3f %8.3f %8llu\n", r, name.c_str(), row.suppression,
              row.conflict, row.delay, row.ineligible, row.counterfeit_ratio, row.ncp,
              static_cast<unsigned long long>(row.min_real));
}

void PrintSummary(const std::vector<std::unique_ptr<UtilityPipeline>>& pipelines,
                  const std::vector<std::map<uint32_t, ReleaseRow>>& reported, const std::vector<RunTotals>& run,
                  uint32_t m) {
  for (size_t p = 0; p < pipelines.size(); ++p) {
    for (const auto& [r, row] : reported[p]) {
      std::printf(
          "report m=%u pipeline=%s release=%u suppression=%.3f counterfeit_ratio=%.3f ncp=%.3f "
          "vehicles_per_slot=%.2f shared=%.3f conflict=%.3f delay=%.3f\n",
          m, pipelines[p]->name().c_str(), r, row.suppression, row.counterfeit_ratio, row.ncp, row.vehicles_per_slot,
          row.shared, row.conflict, row.delay);
    }
    const RunTotals& t = run[p];
    std::printf("whole run, %-16s: %.3f of %llu tuples suppressed, counterfeit ratio %.3f\n",
                pipelines[p]->name().c_str(), 1.0 - static_cast<double>(t.published) / static_cast<double>(t.tuples),
                static_cast<unsigned long long>(t.tuples),
                static_cast<double>(t.counterfeits) / static_cast<double>(t.published + t.counterfeits));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Flags flags = ParseFlags(argc, argv);
  const FleetParams fleet = FleetFromFlags(flags);
  const uint32_t releases = static_cast<uint32_t>(std::stoul(flags.Get("releases", "200")));
  const uint32_t every = static_cast<uint32_t>(std::stoul(flags.Get("every", "20")));
  std::set<uint32_t> report;
  for (const std::string& r : Split(flags.Get("report", "12,50,200"))) report.insert(std::stoul(r));
  report.insert(releases);
  std::ofstream csv, oracle;
  if (const std::string path = flags.Get("csv", ""); !path.empty()) {
    csv.open(path);
    csv << "m,pipeline,release,suppression,conflict,delay,ineligible,counterfeit_ratio,ncp,"
           "min_real,groups,published,violations,vehicles_per_slot,shared\n";
  }
  if (const std::string path = flags.Get("oracle-state", ""); !path.empty()) oracle.open(path);
  std::printf("fleet: %u vehicles, %u values, drift %.3f (%s), missing %.2f, active %.2f, seed %llu\n", fleet.vehicles,
              fleet.values, fleet.drift, flags.Get("shape", "repertoire").c_str(), fleet.missing, fleet.active,
              static_cast<unsigned long long>(fleet.seed));
  uint64_t violations = 0;
  bool dumped = false;
  for (const std::string& ms : Split(flags.Get("m", "5,10"))) {
    const uint32_t m = static_cast<uint32_t>(std::stoul(ms));
    DriftingFleet stream(fleet);
    std::vector<std::unique_ptr<UtilityPipeline>> pipelines = MakeAll(flags, m, fleet);
    std::printf("\nm = %u\n%-8s %-16s %11s %9s %7s %10s %12s %8s %8s\n", m, "release", "pipeline", "suppression",
                "conflict", "delay", "ineligible", "counterfeits", "NCP", "min real");
    std::vector<std::map<uint32_t, ReleaseRow>> reported(pipelines.size());
    std::vector<RunTotals> run(pipelines.size());
    for (uint32_t r = 1; r <= releases; ++r) {
      const std::vector<EpochActivity> epoch = stream.NextEpoch();
      if (oracle.is_open() && !dumped && (r == 3 || report.count(r))) DumpState(oracle, r, stream, epoch);
      for (size_t p = 0; p < pipelines.size(); ++p) {
        const ReleaseRow row = pipelines[p]->Release(r, epoch, stream);
        violations += row.violations;
        for (const std::string& v : pipelines[p]->last_violations()) std::fprintf(stderr, "%s\n", v.c_str());
        run[p].tuples += row.tuples;
        run[p].published += row.published;
        run[p].counterfeits += row.counterfeits;
        if (report.count(r)) reported[p][r] = row;
        if (csv.is_open()) {
          csv << m << ',' << pipelines[p]->name() << ',' << r << ',' << row.suppression << ',' << row.conflict << ','
              << row.delay << ',' << row.ineligible << ',' << row.counterfeit_ratio << ',' << row.ncp << ','
              << row.min_real << ',' << row.groups << ',' << row.published << ',' << row.violations << ','
              << row.vehicles_per_slot << ',' << row.shared << '\n';
        }
        if (r % every == 0 || r == 1 || report.count(r)) PrintRow(r, pipelines[p]->name(), row);
      }
    }
    dumped = true;
    PrintSummary(pipelines, reported, run, m);
  }
  std::printf("\nchecker violations over every release of every pipeline: %llu\n",
              static_cast<unsigned long long>(violations));
  return violations == 0 ? 0 : 1;
}
