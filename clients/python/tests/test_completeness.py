"""The completeness rule on records recorded from a real run (recorded.py)."""

from __future__ import annotations

import dataclasses
import unittest
from collections import Counter
from typing import Iterable, List

from recorded import PARTITIONS, is_summary, records
from vanon_reader.completeness import IncompleteReleaseError, ReleaseAssembler, share_key
from vanon_reader.records import Record, Topic


def feed(assembler: ReleaseAssembler, recs: Iterable[Record]) -> None:
    for r in recs:
        assembler.add(r)


def share_of(rec: Record, groups_to_partition: dict) -> int:
    if rec.kind is Topic.EVENTS:
        return groups_to_partition[(rec.release, rec.value["group"])]
    if rec.kind is Topic.COUNTS:
        return int((rec.key or "").split("/")[1])
    return int(rec.value["partition"])


class RecordedRunTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.all = records()
        cls.summaries = [r for r in cls.all if is_summary(r)]
        cls.releases = sorted({r.release for r in cls.summaries})
        cls.group_partition = {(r.release, r.value["group"]): r.value["partition"]
                               for r in cls.all if r.kind is Topic.RELEASES and r.value["type"] == "group"}
        # A release with events in both partitions, so that holding back one
        # summary leaves real records waiting.
        cls.busy = next(rel for rel in cls.releases
                        if all(s.value["events"] > 0 for s in cls.summaries if s.release == rel))

    def without(self, drop) -> List[Record]:  # type: ignore[no-untyped-def]
        return [r for r in self.all if not drop(r)]

    def summary_of(self, release: int, partition: int) -> Record:
        return next(s for s in self.summaries if s.release == release and s.value["partition"] == partition)

    def check_against_summaries(self, release, assembled) -> None:  # type: ignore[no-untyped-def]
        sums = [s.value for s in assembled.summaries]
        self.assertEqual([s["partition"] for s in sums], list(range(PARTITIONS)))
        self.assertEqual(len(assembled.events), sum(s["events"] for s in sums))
        self.assertEqual(len(assembled.groups), sum(s["groups"] for s in sums))
        self.assertEqual(sum(g.value["size"] for g in assembled.groups), sum(s["tuples"] for s in sums))
        groups = {g.value["group"] for g in assembled.groups}
        self.assertTrue(all(e.value["group"] in groups for e in assembled.events), "an event without its group")
        self.assertTrue(all(e.release == release for e in assembled.events + assembled.groups))
        # Real tuples per group = distinct tokens of its events = size - counterfeits.
        tokens = Counter(g for g, _ in {(e.value["group"], e.value["tuple"]) for e in assembled.events})
        for g in assembled.groups:
            self.assertEqual(tokens[g.value["group"]], g.value["size"] - g.value["counterfeits"])
        recorded_dp = [r for r in self.all if r.kind is Topic.COUNTS and r.key and
                       r.key.split("/")[0] == str(release)]
        self.assertEqual(len(assembled.dp), len(recorded_dp))

    def test_recording_has_releases_with_events_in_every_partition(self) -> None:
        self.assertGreaterEqual(len(self.releases), 3)
        self.assertEqual(len(self.summaries), len(self.releases) * PARTITIONS)

    def test_every_release_is_complete_and_matches_its_summaries(self) -> None:
        a = ReleaseAssembler(PARTITIONS)
        feed(a, self.all)
        self.assertEqual(a.all_summaries(), self.releases)
        for release in self.releases:
            self.assertEqual(a.shortfall(release), [])
            self.check_against_summaries(release, a.take(release))
        self.assertEqual(a.missing_partitions(), {})
        self.assertEqual(a.dropped, [])

    def test_summaries_alone_do_not_make_a_release(self) -> None:
        a = ReleaseAssembler(PARTITIONS)
        feed(a, self.summaries)
        self.assertEqual(a.all_summaries(), self.releases)
        self.assertTrue(a.shortfall(self.busy))
        with self.assertRaises(IncompleteReleaseError):
            a.take(self.busy)
        feed(a, [r for r in self.all if not is_summary(r)])
        self.check_against_summaries(self.busy, a.take(self.busy))

    def test_a_held_back_summary_keeps_the_release_waiting_until_it_arrives(self) -> None:
        held = self.summary_of(self.busy, 1)
        a = ReleaseAssembler(PARTITIONS)
        feed(a, self.without(lambda r: r is held or r.release > self.busy))
        self.assertNotIn(self.busy, a.all_summaries())
        self.assertEqual(a.missing_partitions()[self.busy], [1])
        with self.assertRaises(IncompleteReleaseError):
            a.take(self.busy)
        a.add(held)
        self.assertIn(self.busy, a.all_summaries())
        self.check_against_summaries(self.busy, a.take(self.busy))

    def test_a_release_whose_partition_moved_on_without_its_summary_is_dropped(self) -> None:
        lost = self.summary_of(self.busy, 0)
        a = ReleaseAssembler(PARTITIONS)
        feed(a, self.without(lambda r: r is lost))
        self.assertNotIn(self.busy, a.all_summaries())
        self.assertEqual([d.release for d in a.dropped], [self.busy])
        self.assertIn(0, a.dropped[0].missing_partitions)
        for release in a.all_summaries():
            self.check_against_summaries(release, a.take(release))
        # Records of a dropped release that arrive later are ignored, not revived.
        before = a.ignored_records
        a.add(lost)
        self.assertEqual(a.ignored_records, before + 1)
        self.assertNotIn(self.busy, a.all_summaries())

    def test_a_reader_that_starts_mid_stream_skips_the_release_under_way(self) -> None:
        # Partition 0's records of releases up to `busy` were before the start.
        def before_start(r: Record) -> bool:
            return r.release <= self.busy and share_of(r, self.group_partition) == 0
        a = ReleaseAssembler(PARTITIONS)
        feed(a, self.without(lambda r: r.kind is not Topic.COUNTS and before_start(r)))
        later = [rel for rel in self.releases if rel > self.busy]
        self.assertTrue(later, "the recording needs a release after the busy one")
        self.assertEqual(a.all_summaries(), later)
        self.assertIn(self.busy, [d.release for d in a.dropped])
        for release in later:
            self.check_against_summaries(release, a.take(release))

    def test_a_release_whose_records_are_gone_can_be_dropped_and_stays_so(self) -> None:
        def deleted(r: Record) -> bool:  # retention took partition 0's events of the release
            return r.kind is Topic.EVENTS and r.release == self.busy and share_of(r, self.group_partition) == 0
        a = ReleaseAssembler(PARTITIONS)
        feed(a, self.without(deleted))
        self.assertIn(self.busy, a.all_summaries())
        self.assertTrue(any(s.startswith("partition 0: 0 of") for s in a.shortfall(self.busy)))
        with self.assertRaisesRegex(IncompleteReleaseError, "events"):
            a.take(self.busy)
        a.drop(self.busy, "gone")
        self.assertEqual([(d.release, d.reason) for d in a.dropped], [(self.busy, "gone")])
        feed(a, [r for r in self.all if deleted(r)])
        self.assertNotIn(self.busy, a.all_summaries())

    def test_records_of_another_attempt_of_a_share_are_left_out(self) -> None:
        # A retried transaction's first attempt (visible on brokers without
        # transaction markers): the same records under another attempt id.
        share = [r for r in self.all if r.release == self.busy and r.kind is not Topic.COUNTS
                 and share_of(r, self.group_partition) == 0]
        aborted = [dataclasses.replace(r, attempt="0000000000000000", offset=r.offset + 100000) for r in share]
        a = ReleaseAssembler(PARTITIONS)
        feed(a, [r for r in aborted if not is_summary(r)])
        feed(a, self.all)
        self.check_against_summaries(self.busy, a.take(self.busy))

        b = ReleaseAssembler(PARTITIONS)
        feed(b, self.all)
        feed(b, aborted)  # a whole second attempt, summary included: the first one stands
        self.assertEqual(b.duplicate_summaries, 1)
        self.check_against_summaries(self.busy, b.take(self.busy))

    def test_dp_records_go_with_the_share_named_by_their_key(self) -> None:
        a = ReleaseAssembler(PARTITIONS)
        feed(a, self.all)
        got = a.take(self.busy)
        keys = {share_key(self.busy, p) for p in range(PARTITIONS)}
        self.assertTrue(got.dp)
        self.assertTrue(all(d.key in keys for d in got.dp))

    def test_a_summary_that_disagrees_with_the_metadata_is_an_error(self) -> None:
        a = ReleaseAssembler(PARTITIONS + 1)
        with self.assertRaisesRegex(IncompleteReleaseError, "metadata"):
            feed(a, self.summaries)


if __name__ == "__main__":
    unittest.main()
