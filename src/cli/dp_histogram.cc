#include "dp_histogram.h"

#include <algorithm>
#include <cstdio>
#include <regex>

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
  std::map<std::string, int64_t> sums;
  for (const std::string& r : records) {
    if (r.find(name) == std::string::npos || r.find("\"mechanism\":\"discrete_laplace\"") == std::string::npos) {
      continue;
    }
    const auto release = Field(r, kRelease), partition = Field(r, kPartition), value = Field(r, kValue),
               sensitive = Field(r, kSensitive);
    if (!release || !value || !sensitive) continue;
    const int64_t rel = std::stoll(*release), part = partition ? std::stoll(*partition) : -1;
    if (!pick || rel != pick->first || part != pick->second) continue;
    if (!h) {
      h = DpHistogram{query, rel, part, 0, 0, {}};
      const auto eps = Field(r, kEpsilon), sens = Field(r, kSensitivity);
      if (eps && sens && std::stod(*eps) > 0) h->scale = std::stod(*sens) / std::stod(*eps);
    }
    const auto unclamped = Field(r, kUnclamped);
    sums[Unescape(*sensitive)] += std::stoll(unclamped ? *unclamped : *value);
    ++h->cells;
  }
  if (!h) return std::nullopt;
  std::vector<std::string> order = values;
  order.push_back(config::kOtherSensitiveCell);
  for (const std::string& v : order) {
    auto it = sums.find(v);
    if (it != sums.end()) h->bars.emplace_back(v, it->second);
  }
  return h;
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
  int64_t top = 1;
  for (const auto& [v, n] : h->bars) top = std::max(top, n);
  std::printf("---- DP histogram of the sensitive value: %s, release %lld, input partition %lld ----\n",
              h->query.c_str(), static_cast<long long>(h->release), static_cast<long long>(h->partition));
  std::printf(
      "(every vehicle counted, suppressed ones included, no counterfeits; %zu cells, each with discrete "
      "Laplace noise of scale %.1f, summed per value)\n",
      h->cells, h->scale);
  for (const auto& [v, n] : h->bars) {
    const int width = static_cast<int>(std::max<int64_t>(0, n) * 40 / top);
    std::printf("  %-20s %6lld %s\n", v.c_str(), static_cast<long long>(n), std::string(width, '#').c_str());
  }
  std::printf("-----------------------------------------------------------\n");
  return true;
}

}  // namespace vanon::cli
