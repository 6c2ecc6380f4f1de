#include "vanon/engine/value_window.h"

#include <algorithm>
#include <map>

namespace vanon::engine {

namespace {

void AddToHistory(std::vector<ValueCount>* history, const std::vector<ValueCount>& counts, uint32_t keep) {
  for (const ValueCount& add : counts) {
    auto it = std::find_if(history->begin(), history->end(), [&](const ValueCount& c) { return c.value == add.value; });
    if (it == history->end()) {
      history->push_back(add);
    } else {
      it->count += add.count;
    }
  }
  // Halving keeps the counts small and lets old favourites fade.
  while (std::any_of(history->begin(), history->end(), [](const ValueCount& c) { return c.count >= 256; })) {
    for (ValueCount& c : *history) c.count /= 2;
  }
  std::sort(history->begin(), history->end(), [](const ValueCount& x, const ValueCount& y) {
    if (x.count != y.count) return x.count > y.count;
    return x.value < y.value;
  });
  // Drop values that faded to zero, and the least frequent beyond the cap.
  while (!history->empty() && (history->back().count == 0 || history->size() > keep)) history->pop_back();
}

}  // namespace

std::optional<SensitiveId> ValueWindow::Advance(uint64_t epoch, const std::vector<ValueCount>& counts,
                                                const WindowParams& params) {
  const uint32_t window = std::max<uint32_t>(params.epochs, 1);
  advanced_ = epoch;
  if (!counts.empty()) epochs_.emplace_back(epoch, counts);
  const auto expired =
      std::find_if(epochs_.begin(), epochs_.end(), [&](const auto& e) { return e.first + window > epoch; });
  epochs_.erase(epochs_.begin(), expired);

  std::map<SensitiveId, uint64_t> total;
  for (const auto& [e, per_value] : epochs_) {
    (void)e;
    for (const ValueCount& c : per_value) total[c.value] += c.count;
  }
  if (!total.empty()) {
    SensitiveId best = total.begin()->first;
    uint64_t best_count = 0;
    for (const auto& [value, count] : total) {
      if (count > best_count) {
        best = value;
        best_count = count;
      }
    }
    // Ties keep the previous value: a value moves only when another one is
    // strictly more frequent.
    if (last_ && total.count(*last_) && total[*last_] == best_count) best = *last_;
    last_ = best;
    last_epoch_ = epoch;
    if (!counts.empty()) AddToHistory(&history_, counts, std::max<uint32_t>(params.history_values, 1));
    return best;
  }
  if (params.missing == MissingPolicy::kCarry && last_ && epoch <= last_epoch_ + params.carry_epochs) {
    return last_;
  }
  return params.missing_value;
}

bool ValueWindow::IdsBelow(size_t n) const {
  auto below = [n](const std::vector<ValueCount>& counts) {
    return std::all_of(counts.begin(), counts.end(), [n](const ValueCount& c) { return c.value < n; });
  };
  if (last_ && *last_ >= n) return false;
  if (!below(history_)) return false;
  return std::all_of(epochs_.begin(), epochs_.end(), [&](const auto& e) { return below(e.second); });
}

ValueWindow::Parts ValueWindow::parts() const {
  return Parts{{epochs_.begin(), epochs_.end()}, history_, last_, last_epoch_, advanced_};
}

ValueWindow ValueWindow::FromParts(Parts parts) {
  ValueWindow w;
  w.epochs_.assign(std::make_move_iterator(parts.epochs.begin()), std::make_move_iterator(parts.epochs.end()));
  w.history_ = std::move(parts.history);
  w.last_ = parts.last;
  w.last_epoch_ = parts.last_epoch;
  w.advanced_ = parts.advanced;
  return w;
}

}  // namespace vanon::engine
