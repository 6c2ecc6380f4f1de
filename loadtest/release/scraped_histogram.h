// One Prometheus histogram read from a /metrics page, so the benchmark can
// report the service's own view of release duration beside the one seen
// from the releases topic.
#ifndef VANON_LOADTEST_RELEASE_SCRAPED_HISTOGRAM_H_
#define VANON_LOADTEST_RELEASE_SCRAPED_HISTOGRAM_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vanon::loadtest {

struct ScrapedHistogram {
  std::vector<std::pair<double, double>> buckets;  // (le, cumulative count), +Inf last
  double sum = 0;
  double count = 0;

  double mean() const { return count > 0 ? sum / count : 0; }
  // The smallest bucket bound holding at least fraction q of the samples.
  double UpperBound(double q) const;
};

// Parses `name`'s unlabelled series out of a text exposition.
std::optional<ScrapedHistogram> ParseHistogram(std::string_view exposition, std::string_view name);

// GET http://host:port/metrics; url as Service::MetricsUrl() gives it.
// Empty on failure.
std::string FetchMetrics(const std::string& url);

}  // namespace vanon::loadtest

#endif  // VANON_LOADTEST_RELEASE_SCRAPED_HISTOGRAM_H_
