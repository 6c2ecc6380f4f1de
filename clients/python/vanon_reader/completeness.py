"""When is a release complete? The rule, without Kafka, so that it can be
tested on recorded records.

vanon publishes a release in shares, one per input partition. A share's
anonymized events, its group records and, last, its summary are written in
one Kafka transaction; the summary says how many groups and events the share
has. A release is complete when the summaries of **all** input partitions
have arrived (the partition count comes from the cluster's metadata, not
from the records) and, for each share, the group and event records its
summary announces. DP records travel in the same transactions, keyed
``"<release>/<partition>"``; they are attached to the release whose share
carried them.

A record belongs to a share only if it carries the same ``vanon.attempt``
header as the share's summary: records of a transaction attempt that was
aborted (visible on brokers without transaction markers, such as
librdkafka's mock cluster) are left out.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set

from .records import Record, Topic


class IncompleteReleaseError(RuntimeError):
    """All summaries of a release arrived, but not the records they announce,
    although everything committed up to that point has been read."""


@dataclass
class DroppedRelease:
    """A release that can never be complete."""

    release: int
    missing_partitions: List[int]
    reason: str


@dataclass
class AssembledRelease:
    """The records of one complete release, checked against its summaries."""

    release: int
    partitions: int
    summaries: List[Record]  # one per input partition, in partition order
    groups: List[Record]
    events: List[Record]
    dp: List[Record]


@dataclass
class _Pending:
    first_seen: float
    summaries: Dict[int, Record] = field(default_factory=dict)
    groups: List[Record] = field(default_factory=list)
    events: List[Record] = field(default_factory=list)
    dp: List[Record] = field(default_factory=list)


@dataclass
class _Selection:
    groups: List[Record] = field(default_factory=list)
    events: List[Record] = field(default_factory=list)
    events_per_share: Dict[int, int] = field(default_factory=dict)
    dp: List[Record] = field(default_factory=list)


def share_key(release: int, partition: int) -> str:
    """The Kafka key vanon gives release and DP records of one share."""
    return f"{release}/{partition}"


class ReleaseAssembler:
    """Collects records of the three topics and tells which releases are
    complete. ``partitions`` is the input topic's partition count."""

    def __init__(self, partitions: int) -> None:
        if partitions < 1:
            raise ValueError("partitions must be >= 1")
        self.partitions = partitions
        self._pending: Dict[int, _Pending] = {}
        self._done: Set[int] = set()
        self._latest_summary: Dict[int, int] = {}  # input partition -> newest release it summarized
        self.dropped: List[DroppedRelease] = []
        self.ignored_records = 0  # for releases already handed out or dropped
        self.duplicate_summaries = 0

    # -- input ---------------------------------------------------------------

    def add(self, record: Record) -> None:
        release = self._release_of(record)
        if release is None or release in self._done:
            self.ignored_records += 1
            return
        pending = self._pending.get(release)
        if pending is None:
            pending = self._pending[release] = _Pending(first_seen=time.monotonic())
        if record.kind is Topic.EVENTS:
            pending.events.append(record)
        elif record.kind is Topic.COUNTS:
            pending.dp.append(record)
        elif record.value["type"] == "group":
            pending.groups.append(record)
        else:
            self._add_summary(release, pending, record)

    def _release_of(self, record: Record) -> Optional[int]:
        if record.kind is not Topic.COUNTS:
            return record.release
        # A DP record's "release" is a window index in window mode: the
        # share it came with is in its key.
        head = (record.key or "").split("/", 1)[0]
        return int(head) if head.lstrip("-").isdigit() else None

    def _add_summary(self, release: int, pending: _Pending, record: Record) -> None:
        p = int(record.value["partition"])
        if p >= self.partitions:
            raise IncompleteReleaseError(
                f"{record.where}: summary of input partition {p}, but the input topic has "
                f"{self.partitions} partitions (metadata); the service and this reader disagree")
        if record.value["partitions"] != self.partitions:
            raise IncompleteReleaseError(
                f"{record.where}: summary says the input has {record.value['partitions']} partitions, "
                f"the cluster's metadata says {self.partitions}")
        if p in pending.summaries:
            self.duplicate_summaries += 1  # another attempt of the same share: the first one stands
            return
        pending.summaries[p] = record
        if release > self._latest_summary.get(p, release - 1):
            self._latest_summary[p] = release
        self._drop_unreachable()

    def _drop_unreachable(self) -> None:
        # A partition writes its summaries in release order into one
        # partition of the releases topic. Once it has summarized a later
        # release, an earlier one still missing its summary never gets it.
        for release in sorted(self._pending):
            pending = self._pending[release]
            missing = self._missing(pending)
            moved_on = [p for p in missing if self._latest_summary.get(p, release) > release]
            if not moved_on:
                continue
            self.dropped.append(DroppedRelease(
                release, missing,
                f"input partition(s) {moved_on} published later releases without a summary for release "
                f"{release} (it was written before the reader's start position or deleted by retention, "
                "or the partition had no events yet)"))
            del self._pending[release]
            self._done.add(release)

    # -- state ---------------------------------------------------------------

    def _missing(self, pending: _Pending) -> List[int]:
        return [p for p in range(self.partitions) if p not in pending.summaries]

    def all_summaries(self) -> List[int]:
        """Releases whose summaries have all arrived, oldest first."""
        return sorted(r for r, p in self._pending.items() if len(p.summaries) == self.partitions)

    def missing_partitions(self) -> Dict[int, List[int]]:
        """Incomplete releases and the input partitions whose summary is missing."""
        return {r: self._missing(p) for r, p in sorted(self._pending.items()) if self._missing(p)}

    def waiting_since(self, release: int) -> Optional[float]:
        """time.monotonic() of the release's first record, if it is pending."""
        pending = self._pending.get(release)
        return pending.first_seen if pending else None

    # -- output --------------------------------------------------------------

    def shortfall(self, release: int) -> List[str]:
        """What a release with all its summaries still lacks (empty: nothing)."""
        pending = self._pending[release]
        chosen = self._select(release, pending)
        out = []
        for p in range(self.partitions):
            summary = pending.summaries[p].value
            g = sum(1 for r in chosen.groups if r.value["partition"] == p)
            e = chosen.events_per_share.get(p, 0)
            if g != summary["groups"]:
                out.append(f"partition {p}: {g} of {summary['groups']} group records")
            if e != summary["events"]:
                out.append(f"partition {p}: {e} of {summary['events']} events")
        return out

    def drop(self, release: int, reason: str) -> None:
        """Gives up a release that can never be complete (its records are
        gone): it is listed in :attr:`dropped` and its later records ignored."""
        pending = self._pending.pop(release, None)
        missing = self._missing(pending) if pending else []
        self.dropped.append(DroppedRelease(release, missing, reason))
        self._done.add(release)

    def take(self, release: int) -> AssembledRelease:
        """Hands out a release whose summaries have all arrived; raises
        IncompleteReleaseError when it lacks records they announce."""
        pending = self._pending.get(release)
        if pending is None or self._missing(pending):
            raise IncompleteReleaseError(f"release {release}: summaries missing")
        lacking = self.shortfall(release)
        if lacking:
            raise IncompleteReleaseError(f"release {release}: " + "; ".join(lacking))
        chosen = self._select(release, pending)
        del self._pending[release]
        self._done.add(release)
        summaries = [pending.summaries[p] for p in range(self.partitions)]
        return AssembledRelease(release, self.partitions, summaries, chosen.groups, chosen.events, chosen.dp)

    def _select(self, release: int, pending: _Pending) -> _Selection:
        """The records of each share's summary attempt."""
        attempt = {p: s.attempt for p, s in pending.summaries.items()}
        chosen = _Selection()
        share_of_group: Dict[str, int] = {}
        for g in pending.groups:
            p = g.value["partition"]
            if p in attempt and attempt[p] == g.attempt:
                chosen.groups.append(g)
                share_of_group[g.value["group"]] = p
        for e in pending.events:
            p = share_of_group.get(e.value["group"], -1)
            if p >= 0 and attempt[p] == e.attempt:
                chosen.events.append(e)
                chosen.events_per_share[p] = chosen.events_per_share.get(p, 0) + 1
        keys = {share_key(release, p): a for p, a in attempt.items()}
        chosen.dp = [d for d in pending.dp if d.key in keys and keys[d.key] == d.attempt]
        return chosen
