#include "vanon/dp/count_record.h"

#include <fmt/format.h>

#include "base/json.h"

namespace vanon::dp {

std::string ToJson(const DpCountRecord& r) {
  std::string out = fmt::format("{{\"release\":{},\"query\":", r.release);
  base::AppendJsonString(&out, r.query);
  out.append(",\"cell\":{");
  for (size_t i = 0; i < r.cell.size(); ++i) {
    if (i > 0) out.push_back(',');
    base::AppendJsonString(&out, r.cell[i].first);
    out.push_back(':');
    base::AppendJsonString(&out, r.cell[i].second);
  }
  out.append("}");
  if (r.kind == DpCountRecord::Kind::kCount) {
    out.append(fmt::format(",\"kind\":\"count\",\"value\":{}", r.count));
    if (r.noisy != r.count) out.append(fmt::format(",\"unclamped\":{}", r.noisy));
  } else {
    out.append(fmt::format(",\"kind\":\"ratio\",\"value\":{},\"numerator\":{},\"denominator\":{}", r.ratio, r.numerator,
                           r.denominator));
    if (r.noisy_numerator != r.numerator) out.append(fmt::format(",\"unclamped_numerator\":{}", r.noisy_numerator));
    if (r.noisy_denominator != r.denominator) {
      out.append(fmt::format(",\"unclamped_denominator\":{}", r.noisy_denominator));
    }
  }
  out.append(fmt::format(",\"epsilon\":{},\"sensitivity\":{},\"mechanism\":", r.epsilon, r.sensitivity));
  base::AppendJsonString(&out, r.mechanism);
  out.append(",\"postprocessed\":[");
  for (size_t i = 0; i < r.postprocessed.size(); ++i) {
    if (i > 0) out.push_back(',');
    base::AppendJsonString(&out, r.postprocessed[i]);
  }
  out.append("]}");
  return out;
}

}  // namespace vanon::dp
