// Fixture for check_refusals.py: a config check made only at `run`.
#include <stdexcept>

void CheckLate(int m) {
  if (m < 2) throw std::invalid_argument("privacy.m: must be at least 2");
}
