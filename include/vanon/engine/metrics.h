// Privacy and utility metrics of one release (design page section 5, seed 000
// sections 4.2 and 4.4.5).
//
// Conventions, fixed here once:
// - A MetricRecord is one published or suppressed row. The engine emits one
//   per real tuple (so one per vehicle); the seed's trip-level example emits
//   one per trip. Counterfeits are never records; they only enter the
//   counterfeit ratio. Tuples still waiting are not part of the release.
// - |T| = all records, |T'| = published records, EC = the groups.
// - Group size and h-affiliation count distinct individuals; discernibility,
//   NCP, EMD and knowledge gain count records; g-balance weighs each
//   individual by the events of its records (record weights).
// - EMD and knowledge gain compare each group's distribution of sensitive
//   values with the distribution over all published records.
// - Knowledge gain uses the additive difference (half L1 distance).
// - h-affiliation: max over groups of (individuals sharing the most common
//   sensitive value) / (individuals in the group).
#ifndef VANON_ENGINE_METRICS_H_
#define VANON_ENGINE_METRICS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace vanon::engine {

class CategoricalHierarchy;

struct ReleaseMetrics {
  uint64_t tuples = 0;     // |T|
  uint64_t published = 0;  // |T'|, real tuples only
  uint64_t counterfeits = 0;
  uint64_t groups = 0;
  uint64_t waiting = 0;                            // held for a later release, not in |T|
  std::array<uint64_t, 3> suppressed_by_reason{};  // indexed by SuppressReason

  double suppression_ratio = 0;
  std::array<double, 3> suppression_ratio_by_reason{};
  uint64_t min_group_size = 0;           // distinct individuals
  uint64_t min_distinct = 0;             // distinct sensitive values
  double avg_group_size = 0;             // |T'| / |EC|
  double discernibility = 0;             // sum |e|^2 + |T| per suppressed record
  double discernibility_normalized = 0;  // / |T|^2
  double ncp = 0;
  double emd_max_equal = 0;
  std::optional<double> emd_max_ordered;       // when a sensitive order is known
  std::optional<double> emd_max_hierarchical;  // when a sensitive hierarchy is known
  double counterfeit_ratio = 0;                // counterfeits / (|T'| + counterfeits)
  double g_balance = 0;
  double h_affiliation = 0;
  double knowledge_gain = 0;
};

struct MetricRecord {
  uint64_t individual = 0;
  int64_t group = -1;       // index of its group, -1 when suppressed
  int suppress_reason = 0;  // when suppressed; index into suppressed_by_reason
  uint32_t sensitive = 0;   // dense id
  double loss = 0;          // sum over QIs of the cell loss (ignored when suppressed)
  uint64_t weight = 1;      // events, for g-balance
};

struct MetricTable {
  std::vector<MetricRecord> records;
  uint64_t groups = 0;
  size_t qi_count = 0;
  uint64_t counterfeits = 0;
  uint64_t waiting = 0;
  // Optional: rank of each sensitive id (ordered EMD); its size is the domain.
  std::vector<int32_t> sensitive_rank;
  // Optional: hierarchy over the sensitive values and the leaf of each id.
  const CategoricalHierarchy* sensitive_hierarchy = nullptr;
  std::vector<int32_t> sensitive_leaf;
};

ReleaseMetrics ComputeMetrics(const MetricTable& table);

// EMD of each group against the published distribution, in group order.
enum class EmdForm { kEqual, kOrdered, kHierarchical };
std::vector<double> GroupEmds(const MetricTable& table, EmdForm form);

// Distances between two distributions over the same domain (same length).
double EmdEqual(const std::vector<double>& p, const std::vector<double>& q);
// p and q in the domain's order.
double EmdOrdered(const std::vector<double>& p, const std::vector<double>& q);
// p and q indexed by leaf id of `h`.
double EmdHierarchical(const CategoricalHierarchy& h, const std::vector<double>& p, const std::vector<double>& q);

}  // namespace vanon::engine

#endif  // VANON_ENGINE_METRICS_H_
