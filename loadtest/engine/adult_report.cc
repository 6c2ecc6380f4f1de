// vanon-adult-report: information loss of the engine on UCI Adult.
// Each row is one individual; QIs age, sex, race, marital-status, education,
// native-country, workclass with the ARX hierarchies; sensitive occupation.
// (a) one release at m = 2, 5, 10 (and k-anonymity at k = 5, 10 for
// comparison); (b) ten releases in which every row is active in a random
// contiguous range of releases. Every release is verified by the checker.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "vanon/engine/checker.h"
#include "vanon/engine/release.h"

namespace vanon {
namespace {

const char* const kQis[] = {"age", "sex", "race", "marital-status", "education", "native-country", "workclass"};

// Occupation's most frequent value has 4038 of 30162 rows, so groups of 10
// distinct values need >= 4038 groups and hold 30162 / 4038 = 7.47 real
// tuples on average: 3 counterfeit slots per new group let every row in.
constexpr uint32_t kCounterfeitsAtM10 = 3;

struct Adult {
  engine::Schema schema;
  std::vector<engine::Tuple> rows;
  size_t skipped = 0;
};

std::vector<std::string> Split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ';')) out.push_back(cell);
  return out;
}

Adult LoadAdult(const std::string& dir) {
  std::vector<engine::QiAttribute> attrs;
  for (const char* q : kQis) {
    attrs.push_back({q,
                     std::make_shared<engine::CategoricalHierarchy>(
                         engine::CategoricalHierarchy::LoadArxCsv(dir + "/adult_hierarchy_" + q + ".csv")),
                     {}});
  }
  Adult adult{engine::Schema(std::move(attrs)), {}, 0};
  std::ifstream in(dir + "/adult.csv");
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = Split(line);
  std::vector<size_t> column;
  for (const char* q : kQis) {
    for (size_t c = 0; c < header.size(); ++c) {
      if (header[c] == q) column.push_back(c);
    }
  }
  size_t occupation = 0;
  for (size_t c = 0; c < header.size(); ++c) {
    if (header[c] == "occupation") occupation = c;
  }
  std::map<std::string, engine::SensitiveId> values;
  while (std::getline(in, line)) {
    const std::vector<std::string> cells = Split(line);
    engine::Tuple t;
    t.vehicle = "row" + std::to_string(adult.rows.size() + adult.skipped);
    bool ok = cells.size() == header.size();
    for (size_t a = 0; ok && a < column.size(); ++a) {
      auto code = adult.schema.Encode(a, cells[column[a]]);
      ok = code.has_value();
      if (ok) t.qi.push_back(*code);
    }
    if (!ok) {
      ++adult.skipped;
      continue;
    }
    t.sensitive = values.emplace(cells[occupation], static_cast<engine::SensitiveId>(values.size())).first->second;
    adult.rows.push_back(std::move(t));
  }
  return adult;
}

struct Row {
  std::string label;
  double ncp, suppression, counterfeit;
  uint64_t min_group, groups;
};

void Print(const std::vector<Row>& rows) {
  std::printf("| setting | NCP | suppression ratio | counterfeit ratio | min group | groups |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    std::printf("| %s | %.2f%% | %.2f%% | %.2f%% | %llu | %llu |\n", r.label.c_str(), 100 * r.ncp, 100 * r.suppression,
                100 * r.counterfeit, static_cast<unsigned long long>(r.min_group),
                static_cast<unsigned long long>(r.groups));
  }
}

bool CheckOrComplain(engine::ReleaseChecker& checker, const engine::ReleaseInput& in,
                     const engine::ReleaseOutput& out) {
  const auto v = checker.Check(in, out);
  for (const auto& s : v) std::fprintf(stderr, "checker: %s\n", s.c_str());
  return v.empty();
}

uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

int Main(int argc, char** argv) {
  // "vanon-adult-report single" prints only table (a).
  const bool single_only = argc > 1 && std::string(argv[1]) == "single";
  const Adult adult = LoadAdult(VANON_ADULT_DIR);
  std::printf("UCI Adult: %zu rows (%zu skipped), 7 QIs with ARX hierarchies, sensitive occupation\n\n",
              adult.rows.size(), adult.skipped);
  bool clean = true;

  std::printf("(a) one release\n\n");
  std::vector<Row> single;
  for (int pass = 0; pass < 6; ++pass) {
    engine::ReleaseInput in;
    in.release_id = 1;
    in.tuples = adult.rows;
    in.params.seed = 1;
    std::string label;
    if (pass < 4) {
      in.params.m = pass == 0 ? 2 : pass == 1 ? 5 : 10;
      label = "m-invariance, m = " + std::to_string(in.params.m);
      if (pass == 3) {
        in.params.new_group_counterfeits = kCounterfeitsAtM10;
        label += ", <= " + std::to_string(kCounterfeitsAtM10) + " counterfeits per new group";
      }
    } else {
      in.params.model = engine::Model::kKAnonymity;
      in.params.k = pass == 4 ? 5 : 10;
      label = "k-anonymity (no l), k = " + std::to_string(in.params.k);
    }
    const engine::ReleaseOutput out = ComputeRelease(adult.schema, in);
    engine::ReleaseChecker checker(adult.schema);
    clean &= CheckOrComplain(checker, in, out);
    if (std::getenv("VANON_ADULT_BREAKDOWN") != nullptr) {
      // Where the loss sits: average cell loss per QI over published tuples.
      std::fprintf(stderr, "%s:", label.c_str());
      for (size_t a = 0; a < adult.schema.size(); ++a) {
        double sum = 0, n = 0;
        for (const engine::Group& g : out.groups) {
          sum += adult.schema.Loss(a, g.qi[a]) * static_cast<double>(g.members.size());
          n += static_cast<double>(g.members.size());
        }
        std::fprintf(stderr, " %s %.1f%%", kQis[a], n > 0 ? 100 * sum / n : 0.0);
      }
      std::fprintf(stderr, "\n");
    }
    const engine::ReleaseMetrics& m = out.metrics;
    single.push_back({label, m.ncp, m.suppression_ratio, m.counterfeit_ratio, m.min_group_size, m.groups});
  }
  Print(single);
  if (single_only) return clean ? 0 : 1;

  std::printf("\n(b) ten releases, each row active in a random contiguous range; max delay 2\n\n");
  std::vector<Row> sequence;
  const uint32_t releases = 10;
  std::vector<std::pair<uint32_t, uint32_t>> active(adult.rows.size());
  for (size_t i = 0; i < adult.rows.size(); ++i) {
    uint32_t a = 1 + static_cast<uint32_t>(Mix(i) % releases);
    uint32_t b = 1 + static_cast<uint32_t>(Mix(i + 1000003) % releases);
    active[i] = {std::min(a, b), std::max(a, b)};
  }
  for (uint32_t pass = 0; pass < 4; ++pass) {
    const uint32_t m = pass == 0 ? 2 : pass == 1 ? 5 : 10;
    engine::ReleaseChecker checker(adult.schema);
    engine::ReleaseInput in;
    in.params.m = m;
    if (pass == 3) in.params.new_group_counterfeits = kCounterfeitsAtM10;
    in.params.max_delay = 2;
    in.params.seed = 1;
    double loss = 0, tuples = 0, suppressed = 0, counterfeits = 0, published = 0;
    uint64_t min_group = UINT64_MAX, groups = 0;
    for (uint32_t r = 1; r <= releases; ++r) {
      in.release_id = r;
      in.tuples.clear();
      for (size_t i = 0; i < adult.rows.size(); ++i) {
        if (active[i].first <= r && r <= active[i].second) in.tuples.push_back(adult.rows[i]);
      }
      const engine::ReleaseOutput out = ComputeRelease(adult.schema, in);
      clean &= CheckOrComplain(checker, in, out);
      const engine::ReleaseMetrics& mm = out.metrics;
      loss += mm.ncp * static_cast<double>(mm.tuples);
      tuples += static_cast<double>(mm.tuples);
      suppressed += static_cast<double>(mm.tuples - mm.published);
      counterfeits += static_cast<double>(mm.counterfeits);
      published += static_cast<double>(mm.published);
      if (mm.groups > 0) min_group = std::min(min_group, mm.min_group_size);
      groups += mm.groups;
      engine::ReleaseInput next;
      next.params = in.params;
      next.known_signatures = in.known_signatures;
      for (const auto& [vehicle, sig] : out.new_signatures) next.known_signatures[vehicle] = sig;
      for (const engine::StillWaiting& w : out.waiting) {
        next.waiting.push_back(engine::WaitingTuple{ResolveTuple(in, w.ref), w.first_release});
      }
      in = std::move(next);
    }
    std::string label = "m-invariance, m = " + std::to_string(m);
    if (pass == 3) label += ", <= " + std::to_string(kCounterfeitsAtM10) + " counterfeits per new group";
    sequence.push_back(
        {label, loss / tuples, suppressed / tuples, counterfeits / (published + counterfeits), min_group, groups});
  }
  Print(sequence);
  std::printf("\nNCP and suppression are averaged over all tuples of all ten releases; groups is the total.\n");
  std::printf("checker: %s\n", clean ? "all releases pass" : "VIOLATIONS (see stderr)");
  return clean ? 0 : 1;
}

}  // namespace
}  // namespace vanon

int main(int argc, char** argv) { return vanon::Main(argc, argv); }
