#include "dp_histogram.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <regex>

#include "dp_readout.h"
#include "vanon/kafka/committed_reader.h"

namespace vanon::cli {

namespace {

std::optional<std::string> Field(const std::string& json, const std::regex& re) {
  std::smatch m;
  if (!std::regex_search(json, m, re)) return std::nullopt;
  return m[1].str();
}

// A JSON string's contents with the escapes the writer produces undone
// (\" and \\; other characters are written raw, UTF-8 included).
std::string Unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) ++i;
    out.push_back(s[i]);
  }
  return out;
}

// Characters, not bytes, so that "Beyoncé" lines up with "Radio".
size_t Utf8Width(const std::string& s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// 5.6, 56, 282843: one decimal where it matters (as dp_readout's Describe).
std::string Round(double v) { return v < 100 ? fmt::format("{:.1f}", v) : fmt::format("{:.0f}", v); }

struct ValueSum {
  int64_t noisy = 0;
  size_t cells = 0;
  double variance = 0;
};

}  // namespace

std::optional<DpHistogram> HistogramOf(const std::vector<std::string>& records, const std::string& query,
                                       const std::vector<std::string>& values) {
  static const std::regex kRelease(R"("release":(\d+))"), kPartition(R"("partition":(\d+)\})"),
      kValue(R"("kind":"count","value":(-?\d+))"), kUnclamped(R"("unclamped":(-?\d+))"),
      kEpsilon(R"("epsilon":([0-9.eE+-]+))"), kSensitivity(R"("sensitivity":(\d+))"),
      kSensitive(R"re("sensitive":"((?:[^"\\]|\\.)*)")re");
  const std::string name = "\"query\":\"" + query + "\"";
  // The latest release of the first input partition seen.
  std::optional<std::pair<int64_t, int64_t>> pick;
  for (const std::string& r : records) {
    if (r.find(name) == std::string::npos) continue;
    const auto release = Field(r, kRelease), partition = Field(r, kPartition);
    if (!release) continue;
    const int64_t rel = std::stoll(*release), part = partition ? std::stoll(*partition) : -1;
    if (!pick || (part == pick->second && rel > pick->first)) pick = {rel, part};
  }
  std::optional<DpHistogram> h;
  std::map<std::string, ValueSum> sums;
  for (const std::string& r : records) {
    if (r.find(name) == std::string::npos || r.find("\"mechanism\":\"discrete_laplace\"") == std::string::npos) {
      continue;
    }
    const auto release = Field(r, kRelease), partition = Field(r, kPartition), value = Field(r, kValue),
               sensitive = Field(r, kSensitive);
    if (!release || !value || !sensitive) continue;
    const int64_t rel = std::stoll(*release), part = partition ? std::stoll(*partition) : -1;
    if (!pick || rel != pick->first || part != pick->second) continue;
    const auto eps = Field(r, kEpsilon), sens = Field(r, kSensitivity);
    if (!eps || !sens || std::stod(*eps) <= 0) continue;
    const double epsilon = std::stod(*eps), sensitivity = std::stod(*sens);
    if (!h) h = DpHistogram{query, rel, part, sensitivity / epsilon, 0, {}};
    const auto unclamped = Field(r, kUnclamped);
    ValueSum& sum = sums[Unescape(*sensitive)];
    sum.noisy += std::stoll(unclamped ? *unclamped : *value);
    ++sum.cells;
    const double std = NoiseStd(epsilon, sensitivity);
    sum.variance += std * std;
    ++h->cells;
  }
  if (!h) return std::nullopt;
  std::vector<std::string> order = values;
  order.push_back(config::kOtherSensitiveCell);
  for (const std::string& v : order) {
    auto it = sums.find(v);
    if (it == sums.end()) continue;
    h->bars.push_back({v, it->second.noisy, it->second.cells, std::sqrt(it->second.variance)});
  }
  return h;
}

std::string FormatDpHistogram(const DpHistogram& h) {
  int64_t top = 1;
  for (const DpHistogram::Bar& b : h.bars) top = std::max(top, b.noisy);
  std::string out = fmt::format("---- DP histogram of the sensitive value: {}, release {}, input partition {} ----\n",
                                h.query, h.release, h.partition);
  out += fmt::format(
      "(every vehicle counted, suppressed ones included, no counterfeits; {} cells, each with discrete "
      "Laplace noise of scale {:.1f}, summed per value; +- is the noise std of the sum)\n",
      h.cells, h.scale);
  for (const DpHistogram::Bar& b : h.bars) {
    const size_t width = static_cast<size_t>(std::max<int64_t>(0, b.noisy) * 40 / top), chars = Utf8Width(b.value);
    const std::string pad(chars < 20 ? 20 - chars : 0, ' ');
    std::string line =
        fmt::format("  {}{} {:>6} +- {:<6} {}", b.value, pad, b.noisy, Round(b.std), std::string(width, '#'));
    while (line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  out += "-----------------------------------------------------------\n";
  return out;
}

bool PrintDpHistogram(const config::Config& config) {
  if (!config.dp.enabled) return true;
  const auto q = std::find_if(config.dp.queries.begin(), config.dp.queries.end(), [](const config::DpQuery& d) {
    return std::find(d.dimensions.begin(), d.dimensions.end(), "sensitive") != d.dimensions.end();
  });
  if (q == config.dp.queries.end()) return true;
  std::vector<std::string> records;
  try {
    kafka::ReadCommitted(
        config.kafka.bootstrap, config.kafka.properties, config.kafka.consumer_properties, config.kafka.topics.counts,
        0, 0,
        [&](const kafka::CommittedRecord& r) {
          records.emplace_back(r.value);
          return records.size() < 20000;
        },
        5000);
  } catch (const std::exception&) {
    return false;  // not there yet
  }
  const std::optional<DpHistogram> h = HistogramOf(records, q->name, config.dp.sensitive_values);
  if (!h) return false;
  std::fputs(FormatDpHistogram(*h).c_str(), stdout);
  return true;
}

}  // namespace vanon::cli
