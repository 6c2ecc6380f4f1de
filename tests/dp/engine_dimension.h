// The engine-type QI dimension the DP tests count by: three cells.
#ifndef VANON_TESTS_DP_ENGINE_DIMENSION_H_
#define VANON_TESTS_DP_ENGINE_DIMENSION_H_

#include "vanon/dp/count_query.h"

namespace vanon::dp {

inline Dimension EngineDimension() {
  Dimension d;
  d.kind = Dimension::Kind::kQi;
  d.qi = "engine";
  d.domain = {"EV", "Gas", "Hybrid"};
  return d;
}

}  // namespace vanon::dp

#endif  // VANON_TESTS_DP_ENGINE_DIMENSION_H_
