#include "scraped_histogram.h"

#include <httplib.h>

#include <cmath>
#include <cstdlib>
#include <limits>

namespace vanon::loadtest {

namespace {
double ParseNumber(std::string_view s) {
  std::string t(s);
  if (t == "+Inf") return std::numeric_limits<double>::infinity();
  return std::strtod(t.c_str(), nullptr);
}
}  // namespace

double ScrapedHistogram::UpperBound(double q) const {
  for (const auto& [le, n] : buckets) {
    if (n >= q * count) return le;
  }
  return std::numeric_limits<double>::infinity();
}

std::optional<ScrapedHistogram> ParseHistogram(std::string_view text, std::string_view name) {
  ScrapedHistogram h;
  bool seen = false;
  const std::string bucket = std::string(name) + "_bucket{le=\"";
  const std::string sum = std::string(name) + "_sum ";
  const std::string count = std::string(name) + "_count ";
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (line.starts_with(bucket)) {
      size_t q = line.find('"', bucket.size());
      size_t sp = line.rfind(' ');
      if (q == std::string_view::npos || sp == std::string_view::npos) return std::nullopt;
      h.buckets.emplace_back(ParseNumber(line.substr(bucket.size(), q - bucket.size())),
                             ParseNumber(line.substr(sp + 1)));
      seen = true;
    } else if (line.starts_with(sum)) {
      h.sum = ParseNumber(line.substr(sum.size()));
    } else if (line.starts_with(count)) {
      h.count = ParseNumber(line.substr(count.size()));
    }
  }
  if (!seen) return std::nullopt;
  return h;
}

std::string FetchMetrics(const std::string& url) {
  // url = http://host:port/metrics
  const std::string scheme = "http://";
  if (url.rfind(scheme, 0) != 0) return "";
  size_t slash = url.find('/', scheme.size());
  std::string host_port = url.substr(scheme.size(), slash - scheme.size());
  std::string path = slash == std::string::npos ? "/" : url.substr(slash);
  httplib::Client client("http://" + host_port);
  client.set_read_timeout(5, 0);
  auto res = client.Get(path.c_str());
  if (!res || res->status != 200) return "";
  return res->body;
}

}  // namespace vanon::loadtest
