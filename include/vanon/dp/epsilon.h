// Privacy parameters as exact numbers.
//
// Epsilons are configured as decimals ("0.1") and summed in the budget
// ledger, so binary floating point (where 0.1 + 0.2 != 0.3) would make the
// ledger's "would this exceed the budget" decision depend on rounding. An
// Epsilon is therefore an integer count of nano-epsilon (10^-9): every decimal
// with at most nine fractional digits is represented exactly and sums are
// integer additions. Samplers take the value as a reduced Rational.

#ifndef VANON_DP_EPSILON_H_
#define VANON_DP_EPSILON_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vanon::dp {

// num/den with gcd(num, den) == 1 and den > 0.
struct Rational {
  uint64_t num = 0;
  uint64_t den = 1;

  // Reduces; nullopt when den == 0.
  static std::optional<Rational> Make(uint64_t num, uint64_t den);
  double ToDouble() const { return static_cast<double>(num) / static_cast<double>(den); }
  friend bool operator==(const Rational&, const Rational&) = default;
};

class Epsilon {
 public:
  static constexpr int64_t kNanosPerUnit = 1'000'000'000;

  constexpr Epsilon() = default;
  static constexpr Epsilon FromNanos(int64_t nanos) { return Epsilon(nanos); }

  // Parses a plain non-negative decimal: digits, optionally '.' and at most
  // nine more digits ("10", "0.1", "2.5"). No sign, exponent or spaces.
  static std::optional<Epsilon> Parse(std::string_view text);

  // For callers that hold a double (e.g. a YAML value): the shortest decimal
  // that round-trips to `value` is parsed, so 0.1 becomes exactly 1/10.
  // nullopt when that decimal has more than nine fractional digits, is
  // negative, NaN or too large.
  static std::optional<Epsilon> FromDouble(double value);

  int64_t nanos() const { return nanos_; }
  bool IsZero() const { return nanos_ == 0; }
  Rational ToRational() const;
  double ToDouble() const { return static_cast<double>(nanos_) / kNanosPerUnit; }
  std::string ToString() const;  // shortest decimal, e.g. "0.1"

  // Exact split into `parts` equal shares (sequential composition over the
  // queries of one release). parts must be > 0.
  Rational Share(uint64_t parts) const;

  friend auto operator<=>(const Epsilon&, const Epsilon&) = default;
  Epsilon operator+(Epsilon o) const { return Epsilon(nanos_ + o.nanos_); }
  Epsilon operator-(Epsilon o) const { return Epsilon(nanos_ - o.nanos_); }

 private:
  constexpr explicit Epsilon(int64_t nanos) : nanos_(nanos) {}
  int64_t nanos_ = 0;
};

}  // namespace vanon::dp

#endif  // VANON_DP_EPSILON_H_
