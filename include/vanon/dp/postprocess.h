// Post-processing of noisy values. It cannot weaken the guarantee, but it
// biases estimates (clamping at zero raises the mean of small cells), so
// each output record lists the steps that changed its value.

#ifndef VANON_DP_POSTPROCESS_H_
#define VANON_DP_POSTPROCESS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace vanon::dp {

enum class PostStep {
  kClampNonnegative,  // a negative count became 0
  kDenominatorFloor,  // a ratio's noisy denominator below 1 was taken as 1
  kClipUnitInterval,  // a ratio outside [0, 1] was clipped
};

const char* PostStepName(PostStep step);  // "clamp_nonnegative", ...

struct PostCount {
  int64_t value = 0;
  std::vector<PostStep> steps;
};

struct PostRatio {
  double value = 0;
  std::vector<PostStep> steps;
};

PostCount ClampCount(int64_t noisy);

// noisy_numerator / noisy_denominator, both first clamped to >= 0, the
// denominator floored at 1, the result clipped to [0, 1].
PostRatio RatioOf(int64_t noisy_numerator, int64_t noisy_denominator);

std::vector<std::string> StepNames(const std::vector<PostStep>& steps);

}  // namespace vanon::dp

#endif  // VANON_DP_POSTPROCESS_H_
