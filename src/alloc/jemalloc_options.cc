// jemalloc reads its options from this symbol at start-up (MALLOC_CONF in
// the environment still overrides it).
//
// A release allocates its records (a few hundred MB at 100,000 events/s)
// and frees them once committed, every epoch. With jemalloc's default 10 s
// decay the freed pages went back to the kernel just before the next epoch
// needed them again, and faulting them back in is expensive on the target
// VMs. 30 s keeps them across a 10 s epoch: about 7% less CPU per release
// and about 130 MB more peak RSS in bench_release_e2e (README, Performance).
//
// thp:always asks the kernel for transparent huge pages (madvise, so it works
// where THP is `always` or `madvise`, and is a no-op where it is `never`):
// buffering an epoch touches hundreds of MB of fresh memory, and with 4 KB
// pages the page faults were the largest single cost of ingestion (about a
// fifth of vanon's CPU in a perf profile of bench_ingest_e2e). With huge
// pages: ingest about 1.5x faster, releases about 20% less CPU, the same
// peak RSS (loadtest/results/ingest-release-cost-shared-machine-2026-11-24-to-25.md).
extern "C" {
// NOLINTNEXTLINE: the name and type are jemalloc's interface.
const char* malloc_conf = "dirty_decay_ms:30000,muzzy_decay_ms:30000,thp:always";
}
