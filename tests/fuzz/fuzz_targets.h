// Every fuzz harness body, and the record checks the changelog harness
// shares with the harnesses of single records. See fuzz_support.h for how
// the bodies are run.
#ifndef VANON_TESTS_FUZZ_FUZZ_TARGETS_H_
#define VANON_TESTS_FUZZ_FUZZ_TARGETS_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "vanon/dp/window_counter.h"
#include "vanon/seal/record_sealer.h"

namespace vanon::fuzz {

void FuzzEventParser(std::string_view input);
void FuzzPayloadTransformer(std::string_view input);
void FuzzVinTable(std::string_view input);
void FuzzVehicleRegistry(std::string_view input);
void FuzzConfig(std::string_view input);
void FuzzHierarchy(std::string_view input);
void FuzzBufferedEvent(std::string_view input);
void FuzzStateRecords(std::string_view input);
void FuzzChangelogRecord(std::string_view input);
void FuzzDpRecords(std::string_view input);
void FuzzReleaseLog(std::string_view input);
void FuzzSealedRecord(std::string_view input);
void FuzzKeyring(std::string_view input);

struct FuzzTarget {
  const char* name;  // also the corpus and findings directory, and `<name>_fuzzer`
  void (*body)(std::string_view);
  // Whether tests/fuzz/findings/<name>/ holds inputs a fuzzer found a
  // problem with; the replay test requires it to exist and hold some
  // exactly then, so a lost findings directory fails instead of replaying
  // nothing.
  bool has_findings;
};

inline constexpr FuzzTarget kFuzzTargets[] = {
    {"event_parser", &FuzzEventParser, false},
    {"payload_transformer", &FuzzPayloadTransformer, false},
    {"vin_table", &FuzzVinTable, false},
    {"vehicle_registry", &FuzzVehicleRegistry, false},
    {"config", &FuzzConfig, true},
    {"hierarchy", &FuzzHierarchy, false},
    {"buffered_event", &FuzzBufferedEvent, false},
    {"state_records", &FuzzStateRecords, true},
    {"changelog_record", &FuzzChangelogRecord, true},
    {"dp_records", &FuzzDpRecords, true},
    {"release_log", &FuzzReleaseLog, false},
    {"sealed_record", &FuzzSealedRecord, true},
    {"keyring", &FuzzKeyring, false},
};

// Decode one stored value of its kind (the bytes of a RocksDB value, or of
// a changelog record once opened) and check what the decoder accepted.
// Each returns whether the value decoded.
bool CheckBufferedEvent(std::string_view value);
bool CheckSignature(std::string_view value);
bool CheckWaitingTuple(std::string_view vehicle, std::string_view value);
bool CheckValueWindow(std::string_view value);
bool CheckReleaseLogEntry(std::string_view value);
// A `meta` record by its name ("progress", "clock", "dp_ledger", ...).
bool CheckMetaRecord(std::string_view name, std::string_view value);
// The DP part of `meta` (names starting "dp_"), in dp_records_fuzzer.cc.
bool CheckDpMetaRecord(std::string_view name, std::string_view value);

// The window counters the DP harness restores records into (a plan of the
// demo's kinds of queries), for seeds that match them.
std::vector<dp::WindowCounter> DpWindowCounters();

// The sealed-record harness's sealer (key ring "k1" active, "k0") and the
// place it opens values at, for seeds sealed so that they open.
seal::RecordSealer& FuzzSealer();
seal::RecordPlace FuzzSealPlace();

}  // namespace vanon::fuzz

#endif  // VANON_TESTS_FUZZ_FUZZ_TARGETS_H_
