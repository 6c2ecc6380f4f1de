// The stored records of the state (RocksDB values, and the same bytes in
// the state changelog): signatures, waiting tuples, and the per-partition
// meta records (progress, epoch clock, sensitive dictionary). Input: one
// value, given to every decoder (each checks its own version).
//
// Invariants: a binary record that decodes is the one canonical encoding of
// what it decoded to (re-encoding gives the same bytes); a text record
// decodes again to the same thing; a decoded epoch clock can be used as the
// service uses one it loads (rewound, resumed, observed, closed) without
// undefined behaviour.
#include "fuzz_support.h"
#include "fuzz_targets.h"
#include "vanon/config.h"
#include "vanon/release/epoch_clock.h"
#include "vanon/release/sensitive_dictionary.h"
#include "vanon/state/partition_progress.h"
#include "vanon/state/release_state.h"

namespace vanon::fuzz {

namespace {

// 2025-11-22T10:00:00Z, the fleet generator's start.
constexpr int64_t kWallMs = 1763805600000;

bool CheckProgress(std::string_view value) {
  const std::optional<state::PartitionProgress> p = state::PartitionProgress::Decode(value);
  if (!p) return false;
  const std::string encoded = p->Encode();
  const std::optional<state::PartitionProgress> again = state::PartitionProgress::Decode(encoded);
  Check(again && again->Encode() == encoded, "a progress record does not decode to what it encodes");
  return true;
}

// As StoredClockForReplay and the consuming thread use a loaded clock.
void UseClock(release::EpochClock clock) {
  clock.RewindToFirstOpen();
  clock.Resume(kWallMs);
  (void)clock.NextPrecomputable();
  clock.Observe(kWallMs, kWallMs);
  clock.AdvanceIdle(kWallMs + 3600000);
  if (const std::optional<int64_t> epoch = clock.NextClosable()) {
    clock.Close(*epoch);
    (void)clock.NextClosable();
  }
}

bool CheckClock(std::string_view value) {
  config::EpochConfig demo;
  demo.length_seconds = 10;
  demo.allowed_lateness_seconds = 2;
  demo.idle_timeout_seconds = 5;
  release::EpochClock clock(demo);
  if (!clock.DecodeState(value)) return false;
  const std::string encoded = clock.EncodeState();
  release::EpochClock again(demo);
  Check(again.DecodeState(encoded) && again.EncodeState() == encoded, "an epoch clock does not decode stably");
  UseClock(clock);
  return true;
}

bool CheckDictionary(std::string_view value) {
  release::SensitiveDictionary d;
  if (!d.DecodeState(value)) return false;
  Check(d.EncodeState() == value, "a dictionary is not its canonical encoding");
  for (engine::SensitiveId id = 0; id < d.size(); ++id) {
    Check(d.Find(d.Value(id)) == id, "a dictionary value does not map back to its id");
  }
  return true;
}

bool CheckOffsetSet(std::string_view value) {
  std::string_view rest = value;
  const std::optional<state::OffsetSet> s = state::OffsetSet::DecodeFront(&rest);
  if (!s) return false;
  std::string encoded;
  s->EncodeTo(&encoded);
  Check(encoded == value.substr(0, value.size() - rest.size()), "an offset set is not its canonical encoding");
  return true;
}

}  // namespace

bool CheckSignature(std::string_view value) {
  const std::optional<state::StoredSignature> s = state::StoredSignature::Decode(value);
  if (!s) return false;
  Check(s->Encode() == value, "a signature is not its canonical encoding");
  for (size_t i = 1; i < s->values.size(); ++i) {
    Check(s->values[i - 1] < s->values[i], "a signature's ids are not strictly increasing");
  }
  return true;
}

bool CheckWaitingTuple(std::string_view vehicle, std::string_view value) {
  std::vector<state::WaitingEvent> events;
  const std::optional<engine::WaitingTuple> w = state::DecodeWaitingTuple(vehicle, value, &events);
  if (!w) return false;
  Check(w->tuple.vehicle == vehicle, "a waiting tuple lost its vehicle");
  Check(state::EncodeWaitingTuple(*w, events) == value, "a waiting tuple is not its canonical encoding");
  Check(state::DecodeWaitingTuple(vehicle, value).has_value(), "a waiting tuple decodes only with its events");
  return true;
}

// A value window that decodes is its canonical encoding, and goes on
// advancing without a fault (its epochs are checked against the last one).
bool CheckValueWindow(std::string_view value) {
  std::optional<engine::ValueWindow> w = state::DecodeValueWindow(value);
  if (!w) return false;
  Check(state::EncodeValueWindow(*w) == value, "a value window is not its canonical encoding");
  engine::WindowParams params;
  params.epochs = 3;
  params.missing = engine::MissingPolicy::kCarry;
  params.carry_epochs = 2;
  if (w->advanced() < UINT64_MAX) w->Advance(w->advanced() + 1, {{1, 1}}, params);
  return true;
}

bool CheckMetaRecord(std::string_view name, std::string_view value) {
  if (name == "progress") return CheckProgress(value);
  if (name == "clock") return CheckClock(value);
  if (name == "dictionary") return CheckDictionary(value);
  if (name.substr(0, 3) == "dp_") return CheckDpMetaRecord(name, value);
  return true;  // local-only or unknown records: not read back from a changelog
}

void FuzzStateRecords(std::string_view input) {
  CheckSignature(input);
  CheckWaitingTuple(std::string(32, 'v'), input);
  CheckValueWindow(input);
  CheckProgress(input);
  CheckClock(input);
  CheckDictionary(input);
  CheckOffsetSet(input);
}

}  // namespace vanon::fuzz
