#include "vanon/engine/metrics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "vanon/engine/hierarchy.h"

namespace vanon::engine {

namespace {

// Records of each group, by group index.
std::vector<std::vector<const MetricRecord*>> ByGroup(const MetricTable& table) {
  std::vector<std::vector<const MetricRecord*>> groups(table.groups);
  for (const MetricRecord& r : table.records) {
    if (r.group >= 0) groups[static_cast<size_t>(r.group)].push_back(&r);
  }
  return groups;
}

uint32_t DomainSize(const MetricTable& table) {
  uint32_t size = 0;
  for (const MetricRecord& r : table.records) size = std::max(size, r.sensitive + 1);
  return size;
}

std::vector<double> Distribution(const std::vector<const MetricRecord*>& records, uint32_t domain) {
  std::vector<double> d(domain, 0.0);
  if (records.empty()) return d;
  for (const MetricRecord* r : records) d[r->sensitive] += 1;
  for (double& x : d) x /= static_cast<double>(records.size());
  return d;
}

std::vector<const MetricRecord*> Published(const MetricTable& table) {
  std::vector<const MetricRecord*> out;
  for (const MetricRecord& r : table.records) {
    if (r.group >= 0) out.push_back(&r);
  }
  return out;
}

// Re-indexes a distribution over sensitive ids into `form`'s domain order.
std::vector<double> Project(const MetricTable& table, const std::vector<double>& by_id, EmdForm form) {
  if (form == EmdForm::kEqual) return by_id;
  if (form == EmdForm::kOrdered) {
    std::vector<double> out(table.sensitive_rank.size(), 0.0);
    for (size_t id = 0; id < by_id.size(); ++id) out[table.sensitive_rank[id]] += by_id[id];
    return out;
  }
  std::vector<double> out(table.sensitive_hierarchy->LeafCount(), 0.0);
  for (size_t id = 0; id < by_id.size(); ++id) out[table.sensitive_leaf[id]] += by_id[id];
  return out;
}

}  // namespace

std::vector<double> GroupEmds(const MetricTable& table, EmdForm form) {
  const uint32_t domain = DomainSize(table);
  const auto groups = ByGroup(table);
  const std::vector<double> q = Project(table, Distribution(Published(table), domain), form);
  std::vector<double> out;
  out.reserve(groups.size());
  if (form == EmdForm::kEqual) {
    // Sparse form, linear in the group size rather than the domain:
    // sum |p - q| = sum over present values (|p - q| - q) + sum of all q.
    for (const auto& g : groups) {
      std::map<uint32_t, double> p;
      for (const MetricRecord* r : g) p[r->sensitive] += 1.0 / static_cast<double>(g.size());
      double sum = 1;
      for (const auto& [v, pv] : p) sum += std::abs(pv - q[v]) - q[v];
      out.push_back(g.empty() ? 0.0 : sum / 2);
    }
    return out;
  }
  for (const auto& g : groups) {
    const std::vector<double> p = Project(table, Distribution(g, domain), form);
    switch (form) {
      case EmdForm::kEqual:
        out.push_back(EmdEqual(p, q));
        break;
      case EmdForm::kOrdered:
        out.push_back(EmdOrdered(p, q));
        break;
      case EmdForm::kHierarchical:
        out.push_back(EmdHierarchical(*table.sensitive_hierarchy, p, q));
        break;
    }
  }
  return out;
}

namespace {

// Counts, suppression ratios, NCP, counterfeit ratio and the suppressed
// part of the discernibility: what needs no grouping of the records.
void CountTuples(const MetricTable& table, ReleaseMetrics* m) {
  m->tuples = table.records.size();
  m->groups = table.groups;
  m->counterfeits = table.counterfeits;
  m->waiting = table.waiting;
  double loss = 0;
  for (const MetricRecord& r : table.records) {
    if (r.group >= 0) {
      ++m->published;
      loss += r.loss;
    } else {
      ++m->suppressed_by_reason[static_cast<size_t>(r.suppress_reason)];
      loss += static_cast<double>(table.qi_count);
    }
  }
  const double n = static_cast<double>(m->tuples);
  const double suppressed = static_cast<double>(m->tuples - m->published);
  if (m->tuples > 0) {
    m->suppression_ratio = suppressed / n;
    for (size_t i = 0; i < m->suppressed_by_reason.size(); ++i) {
      m->suppression_ratio_by_reason[i] = static_cast<double>(m->suppressed_by_reason[i]) / n;
    }
    if (table.qi_count > 0) m->ncp = loss / (n * static_cast<double>(table.qi_count));
  }
  m->discernibility = suppressed * n;
  if (m->groups > 0) m->avg_group_size = static_cast<double>(m->published) / static_cast<double>(m->groups);
  if (m->published + m->counterfeits > 0) {
    m->counterfeit_ratio = static_cast<double>(m->counterfeits) / static_cast<double>(m->published + m->counterfeits);
  }
}

// Published records by group through a counting sort of indices (4 bytes a
// record): group g's records are order[start[g], start[g + 1]).
void OrderByGroup(const MetricTable& table, uint64_t published, std::vector<uint64_t>* start,
                  std::vector<uint32_t>* order) {
  start->assign(table.groups + 1, 0);
  for (const MetricRecord& r : table.records) {
    if (r.group >= 0) ++(*start)[static_cast<size_t>(r.group) + 1];
  }
  for (size_t g = 0; g < table.groups; ++g) (*start)[g + 1] += (*start)[g];
  order->assign(published, 0);
  std::vector<uint64_t> fill(start->begin(), start->end() - 1);
  for (size_t i = 0; i < table.records.size(); ++i) {
    const MetricRecord& r = table.records[i];
    if (r.group >= 0) (*order)[fill[static_cast<size_t>(r.group)]++] = static_cast<uint32_t>(i);
  }
}

struct Entry {
  uint32_t sensitive;
  uint64_t individual;
  uint64_t weight;
};

struct GroupStats {
  double emd = 0;       // equal-distance EMD against the published distribution q
  size_t distinct = 0;  // distinct sensitive values
  size_t most = 0;      // individuals holding the most frequent value
  uint64_t individuals = 0;
  double balance = 1;  // 1 - sum of squared weight shares (g-balance)
};

// One group's statistics; sorts `entries`. `weights` is scratch.
GroupStats StatsOfGroup(std::vector<Entry>& entries, const std::vector<double>& q,
                        std::vector<std::pair<uint64_t, uint64_t>>& weights) {
  GroupStats st;
  const double size = static_cast<double>(entries.size());
  // Equal-distance EMD, sparse: sum |p - q| = sum over present values of
  // (|p - q| - q) + 1. Knowledge gain (additive) equals it.
  std::sort(entries.begin(), entries.end(), [](const Entry& x, const Entry& y) {
    return x.sensitive != y.sensitive ? x.sensitive < y.sensitive : x.individual < y.individual;
  });
  double sum = 1;
  for (size_t i = 0; i < entries.size();) {
    size_t j = i, holders = 0;
    for (; j < entries.size() && entries[j].sensitive == entries[i].sensitive; ++j) {
      holders += j == i || entries[j].individual != entries[j - 1].individual;
    }
    const double p = static_cast<double>(j - i) / size;
    sum += std::abs(p - q[entries[i].sensitive]) - q[entries[i].sensitive];
    ++st.distinct;
    st.most = std::max(st.most, holders);
    i = j;
  }
  st.emd = entries.empty() ? 0.0 : sum / 2;

  weights.clear();
  uint64_t total_weight = 0;
  for (const Entry& e : entries) {
    weights.push_back({e.individual, e.weight});
    total_weight += e.weight;
  }
  std::sort(weights.begin(), weights.end());
  for (size_t i = 0; i < weights.size();) {
    uint64_t w = 0;
    size_t j = i;
    for (; j < weights.size() && weights[j].first == weights[i].first; ++j) w += weights[j].second;
    const double share = total_weight ? static_cast<double>(w) / static_cast<double>(total_weight) : 0;
    st.balance -= share * share;
    ++st.individuals;
    i = j;
  }
  return st;
}

}  // namespace

ReleaseMetrics ComputeMetrics(const MetricTable& table) {
  ReleaseMetrics m;
  CountTuples(table, &m);
  std::vector<uint64_t> start;
  std::vector<uint32_t> order;
  OrderByGroup(table, m.published, &start, &order);
  // Published distribution for the equal-distance EMD.
  std::vector<double> q(DomainSize(table), 0.0);
  for (uint32_t i : order) q[table.records[i].sensitive] += 1;
  for (double& x : q) x /= m.published > 0 ? static_cast<double>(m.published) : 1.0;

  // Scratch buffers reused across groups: no per-group containers.
  std::vector<Entry> entries;
  std::vector<std::pair<uint64_t, uint64_t>> weights;  // individual, events
  double gain = 0;
  for (size_t g = 0; g < table.groups; ++g) {
    entries.clear();
    for (uint64_t k = start[g]; k < start[g + 1]; ++k) {
      const MetricRecord& r = table.records[order[k]];
      entries.push_back({r.sensitive, r.individual, r.weight});
    }
    const double size = static_cast<double>(entries.size());
    m.discernibility += size * size;
    const GroupStats st = StatsOfGroup(entries, q, weights);
    gain += size * st.emd;
    m.emd_max_equal = std::max(m.emd_max_equal, st.emd);
    const double affiliation = st.individuals ? static_cast<double>(st.most) / static_cast<double>(st.individuals) : 0;
    m.min_group_size = g == 0 ? st.individuals : std::min<uint64_t>(m.min_group_size, st.individuals);
    m.min_distinct = g == 0 ? st.distinct : std::min<uint64_t>(m.min_distinct, st.distinct);
    m.g_balance = g == 0 ? st.balance : std::min(m.g_balance, st.balance);
    m.h_affiliation = std::max(m.h_affiliation, affiliation);
  }
  const double n = static_cast<double>(m.tuples);
  if (m.published > 0) m.knowledge_gain = gain / static_cast<double>(m.published);
  if (m.tuples > 0) m.discernibility_normalized = m.discernibility / (n * n);

  if (!table.sensitive_rank.empty()) {
    const auto v = GroupEmds(table, EmdForm::kOrdered);
    m.emd_max_ordered = v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
  }
  if (table.sensitive_hierarchy != nullptr) {
    const auto v = GroupEmds(table, EmdForm::kHierarchical);
    m.emd_max_hierarchical = v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
  }
  return m;
}

}  // namespace vanon::engine
