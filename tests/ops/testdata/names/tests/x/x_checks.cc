// Fixture for scripts/check_names.py: a test file not named *_test.cc.
#include <gtest/gtest.h>

TEST(X, Y) {}
