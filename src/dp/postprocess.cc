#include "vanon/dp/postprocess.h"

namespace vanon::dp {

const char* PostStepName(PostStep step) {
  switch (step) {
    case PostStep::kClampNonnegative:
      return "clamp_nonnegative";
    case PostStep::kDenominatorFloor:
      return "denominator_floor_one";
    case PostStep::kClipUnitInterval:
      return "clip_unit_interval";
  }
  return "?";
}

PostCount ClampCount(int64_t noisy) {
  PostCount out{noisy, {}};
  if (noisy < 0) {
    out.value = 0;
    out.steps.push_back(PostStep::kClampNonnegative);
  }
  return out;
}

PostRatio RatioOf(int64_t noisy_numerator, int64_t noisy_denominator) {
  PostRatio out;
  const PostCount num = ClampCount(noisy_numerator);
  const PostCount den = ClampCount(noisy_denominator);
  if (!num.steps.empty() || !den.steps.empty()) out.steps.push_back(PostStep::kClampNonnegative);
  int64_t d = den.value;
  if (d < 1) {
    d = 1;
    out.steps.push_back(PostStep::kDenominatorFloor);
  }
  out.value = static_cast<double>(num.value) / static_cast<double>(d);
  if (out.value > 1) {
    out.value = 1;
    out.steps.push_back(PostStep::kClipUnitInterval);
  }
  return out;
}

std::vector<std::string> StepNames(const std::vector<PostStep>& steps) {
  std::vector<std::string> names;
  for (PostStep s : steps) names.emplace_back(PostStepName(s));
  return names;
}

}  // namespace vanon::dp
