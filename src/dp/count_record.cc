#include "vanon/dp/count_record.h"

#include <fmt/format.h>

namespace vanon::dp {

namespace {

void AppendJsonString(std::string* out, std::string_view s) {
  out->push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (c < 0x20) {
          out->append(fmt::format("\\u{:04x}", c));
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
  out->push_back('"');
}

}  // namespace

std::string ToJson(const DpCountRecord& r) {
  std::string out = fmt::format("{{\"release\":{},\"query\":", r.release);
  AppendJsonString(&out, r.query);
  out.append(",\"cell\":{");
  for (size_t i = 0; i < r.cell.size(); ++i) {
    if (i > 0) out.push_back(',');
    AppendJsonString(&out, r.cell[i].first);
    out.push_back(':');
    AppendJsonString(&out, r.cell[i].second);
  }
  out.append("}");
  if (r.kind == DpCountRecord::Kind::kCount) {
    out.append(fmt::format(",\"kind\":\"count\",\"value\":{}", r.count));
  } else {
    out.append(fmt::format(",\"kind\":\"ratio\",\"value\":{},\"numerator\":{},\"denominator\":{}",
                           r.ratio, r.numerator, r.denominator));
  }
  out.append(fmt::format(",\"epsilon\":{},\"sensitivity\":{},\"mechanism\":", r.epsilon, r.sensitivity));
  AppendJsonString(&out, r.mechanism);
  out.append(",\"postprocessed\":[");
  for (size_t i = 0; i < r.postprocessed.size(); ++i) {
    if (i > 0) out.push_back(',');
    AppendJsonString(&out, r.postprocessed[i]);
  }
  out.append("]}");
  return out;
}

}  // namespace vanon::dp
