// jemalloc reads its options from this symbol at start-up (MALLOC_CONF in
// the environment still overrides it, option by option).
//
// A release allocates its records (a few hundred MB at 100,000 events/s)
// and frees them once committed, every epoch. With jemalloc's default 10 s
// decay the freed pages went back to the kernel just before the next epoch
// needed them again, and faulting them back in is expensive on the target
// VMs. 30 s keeps them across a 10 s epoch: about 7% less CPU per release
// and about 130 MB more peak RSS in bench_release_e2e (README, Performance).
//
// thp:never keeps the heap on 4 KB pages, whatever the node's THP setting.
// The kernel zeroing fresh pages is the largest single cost of ingestion
// (41-61% of vanon's CPU over bench_ingest_e2e's window, about half
// of it in librdkafka's broker thread, for the messages it fetched ahead).
// On the project's 2-core VMs, huge pages (thp:always, which earlier builds
// set) cost about half as much again CPU per ingested event (11 of 11 paired
// runs), more peak RSS, and no less CPU per release
// (loadtest/results/ingest-page-zeroing-2026-11-28.md). An older VM type
// measured the opposite (ingest 1.5x faster with huge pages,
// loadtest/results/ingest-release-cost-shared-machine-2026-11-24-to-25.md):
// there, MALLOC_CONF=thp:always in the environment turns them back on.
extern "C" {
// NOLINTNEXTLINE: the name and type are jemalloc's interface.
const char* malloc_conf = "dirty_decay_ms:30000,muzzy_decay_ms:30000,thp:never";
}
