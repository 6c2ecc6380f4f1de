#include "service/dp/dp_metrics.h"

#include "service/support/metric_builders.h"

namespace vanon::service {

DpMetrics::DpMetrics(prometheus::Registry& registry)
    : budget(NewGauge(registry, "vanon_dp_epsilon_budget", "Total epsilon per rolling period.")),
      spent(NewGauge(registry, "vanon_dp_epsilon_spent",
                     "Epsilon spent in the current period (the most spent by any partition).")),
      remaining(NewGauge(registry, "vanon_dp_epsilon_remaining",
                         "Budget minus spent (the least remaining on any partition).")),
      exhausted(NewGauge(registry, "vanon_dp_budget_exhausted", "1 while DP publication is paused on some partition.")),
      cells(NewCounter(registry, "vanon_dp_cells_published_total", "Noisy cells published.")),
      cut(NewCounter(registry, "vanon_dp_contributions_cut_total", "Contributions dropped by per-vehicle bounding.")),
      global_windows(NewCounterFamily(registry, "vanon_dp_global_windows_total",
                                      "Global DP windows published (dp.aggregation), by completeness.")),
      global_complete(global_windows.Add({{"complete", "true"}})),
      global_incomplete(global_windows.Add({{"complete", "false"}})),
      partials_dropped(NewCounter(registry, "vanon_dp_partials_dropped_total",
                                  "Partials of windows already published, or unreadable: dropped.")),
      global_last_published(NewGauge(registry, "vanon_dp_global_last_published_timestamp_seconds",
                                     "Wall time (Unix s) this instance last published a global DP window, or started "
                                     "with dp.aggregation; 0 without it.")),
      global_max_wait(NewGauge(registry, "vanon_dp_global_max_wait_seconds",
                               "Longest a global DP window waits for partials: (max_wait_windows + 1) x "
                               "dp.window_seconds; 0 without dp.aggregation.")) {}

}  // namespace vanon::service
