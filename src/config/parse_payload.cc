#include <limits>

#include "parse.h"

namespace vanon::config::internal {

namespace {

// True when one path is the other or lies inside it ("a" and "a.b").
bool Overlaps(const std::string& a, const std::string& b) {
  const std::string& s = a.size() <= b.size() ? a : b;
  const std::string& l = a.size() <= b.size() ? b : a;
  return l.compare(0, s.size(), s) == 0 && (l.size() == s.size() || l[s.size()] == '.');
}

}  // namespace

void ParsePayload(Section& root, PayloadConfig* out) {
  constexpr double kMax = std::numeric_limits<double>::max();
  Section s(root.diag(), root.Child("payload"), "payload");
  s.Enum("default", &out->default_action, {{"drop", PayloadDefault::kDrop}, {"keep", PayloadDefault::kKeep}});
  std::vector<YAML::Node> items = s.List("fields");
  for (size_t i = 0; i < items.size(); ++i) {
    Section f(root.diag(), items[i], ItemPath(s.PathOf("fields"), i));
    PayloadField field;
    if (f.DottedPath("path", &field.path, /*required=*/true)) {
      for (const PayloadField& other : out->fields) {
        if (Overlaps(other.path, field.path)) {
          f.Error("path", "\"" + field.path + "\" overlaps \"" + other.path + "\" listed earlier");
          break;
        }
      }
    }
    f.Enum("transform", &field.transform,
           {{"keep", PayloadTransform::kKeep},
            {"drop", PayloadTransform::kDrop},
            {"bin", PayloadTransform::kBin},
            {"gps_grid", PayloadTransform::kGpsGrid}},
           /*required=*/true);
    if (field.transform == PayloadTransform::kBin) {
      f.Double("width", &field.width, 0, kMax, /*lo_open=*/true,
               /*required=*/true);
    } else {
      f.Unexpected("width", "only used with transform: bin");
    }
    if (field.transform == PayloadTransform::kGpsGrid) {
      // A cell larger than the Earth's circumference is a unit mistake.
      f.Double("cell_meters", &field.cell_meters, 0, 4.0e7, /*lo_open=*/true,
               /*required=*/true);
    } else {
      f.Unexpected("cell_meters", "only used with transform: gps_grid");
    }
    out->fields.push_back(std::move(field));
  }
  s.Int("time_bucket_seconds", &out->time_bucket_seconds, 1, 86400);
}

}  // namespace vanon::config::internal
