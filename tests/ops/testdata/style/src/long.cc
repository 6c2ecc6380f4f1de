// Fixture for tests/ops (check-style): what the function-size check must see.
#include <string>

namespace vanon {

namespace {
struct Holder {
  // A member function with a brace-initialized member: 3 lines.
  Holder() : text_{"{ not a brace }"}, n_(1) {
    n_ = 2;
  }
  std::string text_;
  int n_;
};

const char* kRaw = R"x(
} } } unbalanced braces in a raw string do not count
)x";
}  // namespace

int Short(int x) {
  // } a comment brace
  return x + '}';
}

int Long(int x) {
  auto lambda = [](int y) {
    return y * 2;
  };
  x = lambda(x);
  x += 1;
  x += 1;
  x += 1;
  x += 1;
  x += 1;
  x += 1;
  return x;
}

}  // namespace vanon
