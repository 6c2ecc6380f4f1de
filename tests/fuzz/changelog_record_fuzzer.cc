// A state changelog record as the restore reads it (service/restore/state_restorer.cc):
// DecodeChangelogKey on the key, then the value, once opened, as the store
// value of its column family, by the decoder the service reads that family
// with. Input: one byte n, n bytes of key, then the value (empty = a
// tombstone).
//
// Invariants: a key that decodes is the one encoding of its partition and
// change, and the store key it carries belongs to that partition (a restore
// writes it into the store as it is); the value satisfies the invariants of
// its record's harness.
#include "fuzz_support.h"
#include "fuzz_targets.h"
#include "service/collector/changelog_writer.h"
#include "state/key_codec.h"

namespace vanon::fuzz {

namespace {

// The store key's own partition: its first 4 bytes, or for `meta` its last
// 4 (name, '/', partition).
bool KeyInPartition(const state::StateChange& c, int32_t partition) {
  const std::string prefix = state::PartitionPrefix(partition);
  const std::string_view key = c.key;
  if (c.family == state::StateFamily::kMeta) {
    return key.size() >= 5 && key[key.size() - 5] == '/' && key.substr(key.size() - 4) == prefix;
  }
  return key.substr(0, 4) == prefix;
}

void CheckValue(const state::StateChange& c, std::string_view value) {
  const std::string_view key = c.key;
  switch (c.family) {
    case state::StateFamily::kEvents: {
      int32_t partition;
      int64_t ts, offset;
      if (state::DecodeEventKey(key, &partition, &ts, &offset)) CheckBufferedEvent(value);
      return;
    }
    case state::StateFamily::kMeta:
      CheckMetaRecord(key.substr(0, key.size() - 5), value);
      return;
    case state::StateFamily::kSignatures:
      CheckSignature(value);
      return;
    case state::StateFamily::kWaiting:
      CheckWaitingTuple(key.substr(4), value);
      return;
    case state::StateFamily::kReleases: {
      int64_t release;
      if (state::DecodeReleaseKey(key, &release)) CheckReleaseLogEntry(value);
      return;
    }
    case state::StateFamily::kWindows:
      CheckValueWindow(value);
      return;
  }
  Fail("a changelog key decoded to an unknown column family");
}

}  // namespace

void FuzzChangelogRecord(std::string_view input) {
  if (input.empty()) return;
  const size_t key_size = std::min<size_t>(static_cast<uint8_t>(input[0]), input.size() - 1);
  const std::string_view key = input.substr(1, key_size);
  const std::string_view value = input.substr(1 + key_size);
  int32_t partition = -1;
  state::StateChange change;
  if (!service::DecodeChangelogKey(key, &partition, &change)) return;
  Check(service::ChangelogKey(partition, change) == key, "a changelog key is not the encoding of what it decodes to");
  Check(KeyInPartition(change, partition), "a changelog record carries a store key of another partition");
  if (!value.empty()) CheckValue(change, value);
}

}  // namespace vanon::fuzz
