// An independent oracle for sequences of releases. It shares only data types
// with the engine (no helpers), and re-derives every property from the raw
// input tuples, which are the ground truth of which vehicle each tuple is.
#ifndef VANON_ENGINE_CHECKER_H_
#define VANON_ENGINE_CHECKER_H_

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "vanon/engine/release.h"
#include "vanon/engine/schema.h"

namespace vanon::engine {

class ReleaseChecker {
  // Per-vehicle memory, looked up for every tuple of every release: hashed
  // (a std::map walk over a partition's vehicles was most of Accept and a
  // fifth of Verify, perf), found by string_view without a copy. No rule
  // depends on the order of vehicles. The service's vehicles are 32-byte
  // HMAC tokens, uniform already: their first and last eight bytes, mixed,
  // are as good a hash as hashing every byte, at a fraction of the cost.
  struct VehicleHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept {
      if (s.size() < 16) return std::hash<std::string_view>()(s);
      uint64_t first, last;
      std::memcpy(&first, s.data(), 8);
      std::memcpy(&last, s.data() + s.size() - 8, 8);
      const uint64_t h = (first ^ (last * 0x9E3779B97F4A7C15ULL) ^ s.size()) * 0xFF51AFD7ED558CCDULL;
      return static_cast<size_t>(h ^ (h >> 32));
    }
  };
  template <typename V>
  using ByVehicle = std::unordered_map<std::string, V, VehicleHash, std::equal_to<>>;
  // Waiting tuples as (vehicle, first release), sorted: compared whole
  // from one release to the next, so a sorted vector, not a node each.
  using WaitingList = std::vector<std::pair<std::string, uint64_t>>;

 public:
  // What an input's known_signatures hold: every stored signature (the
  // engine's tests), or only those of the release's vehicles (the service,
  // which looks up the vehicles it releases). The rule that a published
  // signature may not go missing applies to the vehicles the input holds in
  // the second case.
  enum class Scope { kAllSignatures, kReleaseVehicles };

  explicit ReleaseChecker(const Schema& schema, Scope scope = Scope::kAllSignatures) : schema_(schema), scope_(scope) {}

  // What one release tells the checker: its violations, and what the
  // checker must remember of it once the release is accepted.
  class Verdict {
   public:
    const std::vector<std::string>& violations() const { return violations_; }

   private:
    friend class ReleaseChecker;
    std::vector<std::string> violations_;
    ByVehicle<Signature> signatures_;     // first seen now (published or claimed)
    ByVehicle<uint64_t> last_published_;  // vehicle -> this release
    std::vector<std::string> forgotten_;  // past the horizon
    WaitingList waiting_;
  };

  // Checks the next release of the sequence and returns its violations, each
  // a human-readable sentence (empty when the release is correct):
  // - groups m-unique (m-invariance) or k-anonymous with distinct l;
  // - each vehicle's signature equal in every release it appears in, and
  //   equal to what the input claims was stored; a signature may be missing
  //   from the input only when its vehicle was last published more than
  //   params.signature_horizon releases ago (0: never), and the vehicle is
  //   then checked as a new one;
  // - each published label covers the member's raw QI;
  // - counterfeits fill exactly the signature slots without a real tuple, and
  //   the metrics count them;
  // - every input tuple published, suppressed with a plausible reason, or
  //   still waiting, exactly once; waiting tuples come back in the next input.
  // The same as Accept(Verify(input, output)).
  std::vector<std::string> Check(const ReleaseInput& input, const ReleaseOutput& output);

  // Check() in two steps, for a caller that may still drop a release after
  // checking it (a share computed before its epoch closed, a transaction
  // that did not commit): Verify changes nothing; Accept makes the checked
  // release part of the sequence the next Verify sees.
  Verdict Verify(const ReleaseInput& input, const ReleaseOutput& output) const;
  void Accept(Verdict verdict);

  // Continues a sequence whose earlier releases this checker did not see (a
  // restarted service, a partition moved): each published vehicle with its
  // stored signature and a release that published it, and the tuples the
  // last release left waiting (vehicle -> first release). The cross-release
  // rules then apply from the next release on, against this memory rather
  // than against what that release's input claims.
  struct Published {
    std::string vehicle;
    Signature signature;
    uint64_t last_release = 0;
  };
  void Resume(const std::vector<Published>& published, std::multimap<std::string, uint64_t> waiting);

 private:
  struct Pass;  // one Verify() call, in steps (checker.cc)

  const Schema& schema_;
  const Scope scope_;
  ByVehicle<Signature> signatures_;
  ByVehicle<uint64_t> last_published_;  // release, by vehicle
  // Tuples the previous release left waiting: vehicle -> first_release.
  WaitingList expected_waiting_;
  bool started_ = false;
};

}  // namespace vanon::engine

#endif  // VANON_ENGINE_CHECKER_H_
