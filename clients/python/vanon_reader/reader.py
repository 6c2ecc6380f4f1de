"""Reads vanon's downstream topics and hands out complete releases."""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, TopicPartition

from .completeness import DroppedRelease, IncompleteReleaseError, ReleaseAssembler
from .records import Parser, Topic
from .release import Release

TP = Tuple[str, int]
log = logging.getLogger("vanon_reader")


@dataclass(frozen=True)
class Topics:
    """Topic names, as in the service's ``kafka.topics`` config."""

    input: str = "vehicle.events.raw"
    events: str = "vehicle.events.anonymized"
    releases: str = "vehicle.releases"
    counts: str = "vehicle.counts.dp"


class Reader:
    """``for release in Reader(bootstrap): ...`` yields complete releases only.

    A release is complete when the summary of every input partition has
    arrived (the count comes from the cluster's metadata of the input topic;
    pass ``partitions`` only when this client may not describe that topic)
    and every group and event record those summaries announce. Records are
    read with ``isolation.level=read_committed``: a release transaction is
    seen whole or not at all. Each record is validated against the
    repository's JSON Schemas; one that does not match raises
    :class:`~vanon_reader.records.RecordError` naming topic, partition and
    offset.

    ``start="earliest"`` reads every release still retained; ``"latest"``
    only releases whose records all come after the reader starts (releases
    under way are skipped and listed in :attr:`dropped`). A release whose
    summaries all arrived but whose announced records are not there once
    everything committed with them has been read (deleted by retention
    before the reader got to them) is never handed out either: it is logged
    and listed in :attr:`dropped`, or, with ``strict=True``, raises
    :class:`~vanon_reader.completeness.IncompleteReleaseError`.

    Iteration ends after ``idle_timeout`` seconds in which no record arrived
    and no release was complete (None: never), or after ``max_releases``.
    Nothing is committed to Kafka: the reader keeps no consumer-group
    position.
    """

    def __init__(self, bootstrap: str, *, topics: Topics = Topics(), partitions: Optional[int] = None,
                 start: str = "earliest", validate: bool = True, kafka_config: Optional[Mapping[str, Any]] = None,
                 idle_timeout: Optional[float] = None, max_releases: Optional[int] = None,
                 metadata_timeout: float = 30.0, strict: bool = False) -> None:
        if start not in ("earliest", "latest"):
            raise ValueError("start must be 'earliest' or 'latest'")
        # Fetches long-poll the broker for at most this long; offset lookups
        # (the fences below) queue behind them on the same connection.
        conf: Dict[str, Any] = {"fetch.wait.max.ms": 100}
        conf.update(kafka_config or {})
        conf.update({
            "bootstrap.servers": bootstrap,
            # Required by the consumer API although nothing is subscribed or committed.
            "group.id": f"vanon-reader-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
            "isolation.level": "read_committed",
            "enable.partition.eof": True,
        })
        self._consumer = Consumer(conf)
        self._timeout = metadata_timeout
        self._topics = topics
        self._kind = {topics.events: Topic.EVENTS, topics.releases: Topic.RELEASES, topics.counts: Topic.COUNTS}
        self._parser = Parser(validate=validate)
        self.partitions = partitions if partitions is not None else self._input_partitions()
        self._assembler = ReleaseAssembler(self.partitions)
        self._next: Dict[TP, int] = {}  # next offset to read, per topic partition
        self._eof: Dict[TP, int] = {}  # end offset at the last end-of-partition event
        self._fences: Dict[int, Dict[TP, int]] = {}
        self._strict = strict
        self._idle_timeout = idle_timeout
        self._max_releases = max_releases
        self.yielded = 0
        self._assign(start)

    # -- set-up --------------------------------------------------------------

    def _metadata(self) -> Dict[str, int]:
        # All topics, not one by name: naming a missing topic may create it.
        md = self._consumer.list_topics(timeout=self._timeout)
        return {name: len(t.partitions) for name, t in md.topics.items() if t.error is None}

    def _input_partitions(self) -> int:
        have = self._metadata()
        if self._topics.input not in have:
            raise RuntimeError(f"input topic {self._topics.input} is not in the cluster's metadata: "
                               "cannot tell how many summaries make a release complete "
                               "(pass partitions=N if this client may not describe it)")
        return have[self._topics.input]

    def _assign(self, start: str) -> None:
        have = self._metadata()
        assignment: List[TopicPartition] = []
        for topic in self._kind:
            if topic not in have:
                raise RuntimeError(f"topic {topic} is not in the cluster's metadata")
            for p in range(have[topic]):
                low, high = self._consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=self._timeout)
                at = high if start == "latest" else low
                self._next[(topic, p)] = at
                assignment.append(TopicPartition(topic, p, at if start == "latest" else OFFSET_BEGINNING))
        self._consumer.assign(assignment)

    # -- reading -------------------------------------------------------------

    def __iter__(self) -> Iterator[Release]:
        idle_since = time.monotonic()
        while self._max_releases is None or self.yielded < self._max_releases:
            release = self._ready_release()
            if release is not None:
                self.yielded += 1
                yield release
                idle_since = time.monotonic()
                continue
            if self._idle_timeout is not None and time.monotonic() - idle_since >= self._idle_timeout:
                return
            if self._poll(1.0) > 0:
                idle_since = time.monotonic()

    def next_release(self, timeout: Optional[float] = None) -> Optional[Release]:
        """The next complete release, or None when none is complete after
        ``timeout`` seconds (None: wait as long as it takes)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            release = self._ready_release()
            if release is not None:
                self.yielded += 1
                return release
            left = 1.0 if deadline is None else deadline - time.monotonic()
            if left <= 0:
                return None
            self._poll(min(left, 1.0))

    def _poll(self, timeout: float) -> int:
        """Reads what arrives within ``timeout`` s; returns how many records."""
        records = 0
        for m in self._consumer.consume(num_messages=2000, timeout=timeout):
            tp = (m.topic(), m.partition())
            err = m.error()
            if err is not None:
                if err.code() == KafkaError._PARTITION_EOF:
                    self._eof[tp] = max(self._eof.get(tp, 0), m.offset())
                    continue
                raise KafkaException(err)
            self._next[tp] = m.offset() + 1
            record = self._parser.parse(self._kind[m.topic()], m.topic(), m.partition(), m.offset(), m.key(),
                                        m.value(), m.headers())
            self._assembler.add(record)
            records += 1
        fresh = [r for r in self._assembler.all_summaries() if r not in self._fences]
        if fresh:
            fence = self._fence()
            for release in fresh:
                self._fences[release] = fence
        return records

    def _fence(self) -> Dict[TP, int]:
        # Every summary of the release is committed, so the events and DP
        # records of their transactions lie below each partition's current
        # end (the last stable offset, as a read_committed client is told):
        # the release is handed out once the reader has read up to there.
        # Groups precede their summary in the same partition: no fence.
        wanted = [TopicPartition(t, p, -1) for (t, p) in self._next if t != self._topics.releases]
        ends = self._consumer.offsets_for_times(wanted, timeout=self._timeout)
        fence: Dict[TP, int] = {}
        for tp in ends:
            if tp.error is not None or tp.offset < 0:
                raise KafkaException(tp.error or KafkaError(KafkaError._UNKNOWN_PARTITION))
            fence[(tp.topic, tp.partition)] = tp.offset
        return fence

    def _ready_release(self) -> Optional[Release]:
        for release in sorted(self._fences):
            fence = self._fences[release]
            if not all(self._next[tp] >= end or self._eof.get(tp, -1) >= end for tp, end in fence.items()):
                continue
            del self._fences[release]
            try:
                return Release.from_records(self._assembler.take(release))
            except IncompleteReleaseError as e:
                if self._strict:
                    raise
                log.warning("skipping incomplete release: %s (records deleted before they were read?)", e)
                self._assembler.drop(release, str(e))
        return None

    # -- state ---------------------------------------------------------------

    def pending(self) -> Dict[int, List[int]]:
        """Releases seen but not complete, with the input partitions whose
        summary has not arrived."""
        return self._assembler.missing_partitions()

    @property
    def dropped(self) -> List[DroppedRelease]:
        """Releases that can never be complete (see ReleaseAssembler)."""
        return self._assembler.dropped

    def close(self) -> None:
        self._consumer.close()

    def __enter__(self) -> "Reader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
