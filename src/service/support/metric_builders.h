// Registering one metric, or one family of labelled series, in one line:
// the service's exporters (ingest, release, DP) declare tens of them in
// their constructors.

#ifndef VANON_SRC_SERVICE_SUPPORT_METRIC_BUILDERS_H_
#define VANON_SRC_SERVICE_SUPPORT_METRIC_BUILDERS_H_

#include <utility>

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

namespace vanon::service {

inline prometheus::Counter& NewCounter(prometheus::Registry& r, const char* name, const char* help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(r).Add({});
}

inline prometheus::Gauge& NewGauge(prometheus::Registry& r, const char* name, const char* help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(r).Add({});
}

inline prometheus::Histogram& NewHistogram(prometheus::Registry& r, const char* name, const char* help,
                                           prometheus::Histogram::BucketBoundaries bounds) {
  return prometheus::BuildHistogram().Name(name).Help(help).Register(r).Add({}, std::move(bounds));
}

// A family whose series the caller adds, one per label value.
inline prometheus::Family<prometheus::Counter>& NewCounterFamily(prometheus::Registry& r, const char* name,
                                                                 const char* help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(r);
}

inline prometheus::Family<prometheus::Gauge>& NewGaugeFamily(prometheus::Registry& r, const char* name,
                                                             const char* help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(r);
}

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_SUPPORT_METRIC_BUILDERS_H_
