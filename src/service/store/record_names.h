// Names of the meta records the service keeps in state (StateStore::GetMeta,
// PutMeta) and in the state changelog: one list, so that whoever writes a
// record and whoever reads it back (the apply batch, a restart, a restore by
// a new owner) cannot disagree on its name. docs/state.md, "Stored records",
// gives each record's value. ("progress" belongs to the state library:
// state::ReleaseWrite::SetProgress.)
#ifndef VANON_SRC_SERVICE_STORE_RECORD_NAMES_H_
#define VANON_SRC_SERVICE_STORE_RECORD_NAMES_H_

namespace vanon::service {

// Per partition.
inline constexpr const char* kClockMeta = "clock";                  // EpochClock::EncodeState, as of the last release
inline constexpr const char* kDictionaryMeta = "dictionary";        // SensitiveDictionary::EncodeState
inline constexpr const char* kDpLedgerMeta = "dp_ledger";           // StateLedgerStore: the DP budget charges
inline constexpr const char* kDpTreeChargeMeta = "dp_tree_charge";  // ledger id the running totals publish on
inline constexpr const char* kDpWindowMeta = "dp_window";           // DP windows (dp_windows.cc)
inline constexpr const char* kDpAggIndexMeta = "dp_agg";            // global DP counts (dp_global_counts.cc)
inline constexpr const char* kDpAggReadMeta = "dp_agg_read";        // ... and how far the partials were read
inline constexpr const char* kDpGlobalSumsPrefix = "dp_gcumsum/";   // ... running sums, one record per key

// Per partition, in the changelog only (never in local state).
inline constexpr const char* kPreparedMeta = "prepared";          // ChangelogWriter::PublishPrepared
inline constexpr const char* kSeedingMeta = "changelog_seeding";  // while a seed runs (StateRestorer)

// Per partition, in local state only.
inline constexpr const char* kChangelogOffsetMeta = "changelog_offset";  // StateRestorer's mark

// Store-wide (state::kStoreWideMeta), local only.
inline constexpr const char* kInputPartitionsMeta = "input_partitions";  // PartitionGuard
inline constexpr const char* kStateVersionMeta = "state_version";        // state_version.h

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_STORE_RECORD_NAMES_H_
