"""The reader against the real service: vanon-kafka, `vanon run` and
`vanon loadgen` as processes on 127.0.0.1, as an operator runs them.

    VANON_BIN=build/src/cli/vanon VANON_KAFKA_BIN=build/src/cli/vanon-kafka \\
        /usr/bin/python3 -m unittest -v test_live      (from clients/python/tests)

1. Three complete releases read with the reader agree with their summaries.
2. The example report reads them and writes its PNG; `vanon tail` prints
   the same releases.
3. A release with one partition's summary held back is not handed out; it is
   once the summary arrives; `vanon tail` exits 3 meanwhile. The test replays a real release's records into
   topics of its own, so that it decides when the last summary is produced.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import uuid
from collections import Counter
from typing import Any, Dict, List, Optional, Tuple

import yaml

import recorded  # noqa: F401  (puts the package on sys.path)
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, Producer, TopicPartition
from vanon_reader import IncompleteReleaseError, Reader, Release, Topics, window_counts

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
PARTITIONS = 2
REPLAY = Topics(events="replay.events.anonymized", releases="replay.releases", counts="replay.counts.dp")
GONE = Topics(events="gone.events.anonymized", releases="gone.releases", counts="gone.counts.dp")
OUTPUT = Topics()
# Seals the service's internal topics (the state changelog); a test key.
STATE_KEYS = "reader-test-1:" + bytes(range(32)).hex()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Process:
    """A child process with its output in a file, stopped with SIGTERM."""

    def __init__(self, name: str, argv: List[str], workdir: str, env: Optional[Dict[str, str]] = None) -> None:
        self.name = name
        self.log_path = os.path.join(workdir, name + ".log")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT,
                                     env={**os.environ, **(env or {})})

    def first_line(self, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with open(self.log_path) as f:
                line = f.readline()
            if line.endswith("\n"):
                return line.strip()
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError(f"{self.name} printed no line: {self.tail()}")

    def tail(self) -> str:
        with open(self.log_path) as f:
            return f.read()[-3000:]

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        return self.proc.returncode


def read_raw(bootstrap: str, topics: List[str]) -> List[Dict[str, Any]]:
    """Every record of the topics now, read_committed, with what a replay needs."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": uuid.uuid4().hex, "enable.auto.commit": False,
                  "isolation.level": "read_committed", "enable.partition.eof": True})
    md = c.list_topics(timeout=10)
    parts = [TopicPartition(t, p, OFFSET_BEGINNING) for t in topics for p in md.topics[t].partitions]
    c.assign(parts)
    out: List[Dict[str, Any]] = []
    ended = set()
    while len(ended) < len(parts):
        for m in c.consume(num_messages=1000, timeout=5):
            if m.error() is not None:
                if m.error().code() != KafkaError._PARTITION_EOF:
                    raise RuntimeError(str(m.error()))
                ended.add((m.topic(), m.partition()))
                continue
            out.append({"topic": m.topic(), "partition": m.partition(), "key": m.key(), "value": m.value(),
                        "headers": m.headers() or []})
    c.close()
    return out


class LiveServiceTest(unittest.TestCase):
    workdir: str
    bootstrap: str
    kafka: Process
    vanon: Process
    releases: List[Release]
    all_ids: List[int]  # every release the reader handed out, the empty ones too

    @classmethod
    def setUpClass(cls) -> None:
        vanon_bin = os.environ["VANON_BIN"]
        kafka_bin = os.environ["VANON_KAFKA_BIN"]
        cls.workdir = tempfile.mkdtemp(prefix="vanon-reader-live-")
        topics = ["vehicle.events.raw", "vehicle.events.dlq", "vehicle.events.late", "vanon.state.changelog"]
        topics += [OUTPUT.events, OUTPUT.releases, OUTPUT.counts, REPLAY.events, REPLAY.releases, REPLAY.counts,
                   GONE.events, GONE.releases, GONE.counts]
        argv = [kafka_bin, "--brokers", "1"]
        for t in topics:
            argv += ["--topic", f"{t}:{PARTITIONS}"]
        cls.kafka = Process("vanon-kafka", argv, cls.workdir)
        cls.bootstrap = cls.kafka.first_line(30)
        # 3 s epochs (1 s allowed lateness), so that releases come quickly.
        cls.vanon = Process("vanon-run", [
            vanon_bin, "run", "--config", os.path.join(SOURCE_DIR, "config", "demo.yaml"),
            "--set", f"kafka.bootstrap={cls.bootstrap}", "--set", f"state.dir={cls.workdir}/state",
            "--set", f"http.listen=127.0.0.1:{free_port()}", "--set", "privacy.epoch.length_seconds=3",
            "--set", "privacy.epoch.allowed_lateness_seconds=1", "--set", "privacy.epoch.idle_timeout_seconds=2",
            "--set", "dp.time_bucket_seconds=3", "--set", "payload.time_bucket_seconds=3",
            # A noise-dominated budget (10 a day): the DP check below tests
            # the std against unit draws.
            "--set", "dp.epsilon_per_release=0.0001", "--set", "dp.budget.epsilon=10"],
            cls.workdir, {"VANON_HMAC_KEY": "reader-live-test-key-0123456789", "VANON_STATE_KEYS": STATE_KEYS})
        loadgen = Process("vanon-loadgen", [
            vanon_bin, "loadgen", "--bootstrap", cls.bootstrap, "--topic", "vehicle.events.raw",
            "--vehicles", "150", "--rate", "600", "--duration", "16", "--seed", "11",
            "--max-message-bytes", "65536"], cls.workdir)
        try:
            loadgen.proc.wait(120)
            if loadgen.stop() != 0:
                raise RuntimeError("loadgen failed: " + loadgen.tail())
            cls.releases = cls.read_three_releases()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def read_three_releases(cls) -> List[Release]:
        got: List[Release] = []
        cls.all_ids = []
        with Reader(cls.bootstrap, idle_timeout=60) as reader:
            assert reader.partitions == PARTITIONS
            for release in reader:
                cls.all_ids.append(release.id)
                # The first release may be empty: the service started before the fleet.
                if release.published > 0:
                    got.append(release)
                if len(got) == 3:
                    break
        if len(got) < 3:
            raise RuntimeError(f"only {len(got)} releases with vehicles; vanon said: {cls.vanon.tail()}")
        return got

    @classmethod
    def tearDownClass(cls) -> None:
        for p in ("vanon", "kafka"):
            if hasattr(cls, p):
                getattr(cls, p).stop()
        shutil.rmtree(cls.workdir, ignore_errors=True)

    # -- 1. three complete releases ------------------------------------------

    def test_three_releases_agree_with_their_summaries(self) -> None:
        ids = [r.id for r in self.releases]
        self.assertEqual(ids, sorted(ids))
        for release in self.releases:
            with self.subTest(release=release.id):
                self.check_release(release)

    def check_release(self, release: Release) -> None:
        s = release.summary.set_index("partition")
        self.assertEqual(sorted(s.index), list(range(PARTITIONS)))
        self.assertTrue((s["release"] == release.id).all())
        self.assertEqual(len(release.groups), s["groups"].sum())
        self.assertEqual(release.groups["size"].sum(), s["tuples"].sum())
        self.assertEqual(release.groups["counterfeits"].sum(), s["counterfeits"].sum())
        # Every event's group is there (the join finds one for each).
        joined = release.events_with_groups()
        self.assertEqual(len(joined), s["events"].sum())
        self.assertFalse(joined["size"].isna().any(), "an event whose group record is missing")
        self.assertEqual(dict(Counter(joined["partition"])), {p: s.loc[p, "events"] for p in s.index
                                                             if s.loc[p, "events"] > 0})
        # Tuples counted: real tuples per group = its events' distinct tokens.
        tokens = joined.groupby("group")["tuple"].nunique()
        real = release.groups.set_index("group")
        self.assertEqual(int(tokens.sum()), s["published"].sum())
        for g, n in tokens.items():
            self.assertEqual(n, real.loc[g, "size"] - real.loc[g, "counterfeits"])
        for p in s.index:
            self.assertEqual(real[real["partition"] == p]["size"].sum(), s.loc[p, "tuples"])
        self.assertTrue((real["size"] >= 5).all(), "m = 5: every group has at least m tuples")
        self.check_dp(release)

    def check_dp(self, release: Release) -> None:
        dp = release.dp
        self.assertFalse(dp.empty, "no DP records came with the release")
        self.assertEqual(set(dp["key"]), {f"{release.id}/{p}" for p in range(PARTITIONS)})
        counts = window_counts(dp, PARTITIONS)
        self.assertTrue(counts["complete"].all())
        # The budget set above makes each count almost pure noise (true counts
        # are a few hundred, the std about 283,000), so noisy / std is about
        # a unit draw: a wrong epsilon or scale would move this by a factor
        # of 5 or more (the epsilon is split over 5 measurements).
        per = dp[(dp["kind"] == "count") & (dp["mechanism"] == "discrete_laplace")]
        z2 = float(((per["noisy"] / per["std"]) ** 2).mean())
        self.assertTrue(1 / 3 < z2 < 3, f"mean (noisy/std)^2 = {z2} over {len(per)} counts")
        # The epsilon is split over the measurements: a query each, two per KPI.
        with open(os.path.join(SOURCE_DIR, "config", "demo.yaml"), encoding="utf-8") as f:
            dp_conf = yaml.safe_load(f)["dp"]
        measurements = len(dp_conf.get("queries", [])) + 2 * len(dp_conf.get("kpis", []))
        self.assertTrue(math.isclose(per["epsilon"].iloc[0], 0.0001 / measurements))

    def test_the_example_report_draws_a_png(self) -> None:
        out = os.path.join(self.workdir, "report.png")
        script = os.path.join(SOURCE_DIR, "clients", "python", "examples", "report.py")
        done = subprocess.run([sys.executable, script, "--bootstrap", self.bootstrap, "--releases", "3", "--out", out,
                               "--idle-timeout", "60"], capture_output=True, text=True, timeout=300)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        with open(out, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertGreater(os.path.getsize(out), 20000)
        self.assertIn("wrote", done.stdout)

    def tail(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:  # type: ignore[type-arg]
        argv = [os.environ["VANON_BIN"], "tail", "--config", os.path.join(SOURCE_DIR, "config", "demo.yaml"),
                "--set", f"kafka.bootstrap={self.bootstrap}", *args]
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)

    def test_vanon_tail_prints_the_same_complete_releases(self) -> None:
        done = self.tail("--from-beginning", "--json", "--count", str(len(self.all_ids)), "--timeout", "60")
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = [json.loads(line) for line in done.stdout.splitlines()]
        self.assertEqual([line["release"] for line in lines], self.all_ids)
        by_id = {line["release"]: line for line in lines}
        for release in self.releases:
            line = by_id[release.id]
            self.assertEqual(line["partitions"], PARTITIONS)
            self.assertEqual(line["groups"], len(release.groups))
            self.assertEqual(line["published"], release.published)
            self.assertEqual(line["suppressed"], release.suppressed)
            self.assertEqual(line["counterfeits"], release.counterfeits)
            self.assertEqual(line["events"], len(release.events))
        text = self.tail("--from-beginning", "--count", "1")
        self.assertEqual(text.returncode, 0, text.stderr)
        self.assertRegex(text.stdout, r"^release \d+ complete: partitions 2, groups \d+, published \d+, "
                                      r"suppressed \d+, counterfeits \d+")

    # -- 2. a held-back summary ------------------------------------------------

    def test_a_release_with_a_held_back_summary_is_not_handed_out(self) -> None:
        original = self.releases[1]
        records = self.release_records(original.id)
        held = [r for r in records if b'"type":"summary"' in r["value"] and self.share_of(r, original.id) == 1]
        self.assertEqual(len(held), 1)
        def produce(recs: List[Dict[str, Any]]) -> None:
            self.replay(recs, REPLAY)

        produce([r for r in records if r is not held[0]])
        on_replay = ("--set", f"kafka.topics.releases={REPLAY.releases}", "--from-beginning")
        with Reader(self.bootstrap, topics=REPLAY) as reader:
            self.assertIsNone(reader.next_release(timeout=8), "a release was handed out without all summaries")
            self.assertEqual(reader.pending(), {original.id: [1]})
            # The operator's view of the same: vanon tail gives up after its timeout.
            waited = self.tail(*on_replay, "--timeout", "3", timeout=60)
            self.assertEqual(waited.returncode, 3, waited.stdout + waited.stderr)
            self.assertEqual(waited.stdout, "")
            self.assertIn(f"release {original.id} incomplete", waited.stderr)
            self.assertIn("no summary from input partition(s) 1 of 2", waited.stderr)
            produce(held)
            replayed = reader.next_release(timeout=60)
        done = self.tail(*on_replay, "--count", "1", "--json", "--timeout", "30")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(json.loads(done.stdout)["release"], original.id)
        self.assertIsNotNone(replayed)
        assert replayed is not None
        self.assertEqual(replayed.id, original.id)
        self.assertEqual(len(replayed.events), len(original.events))
        self.assertEqual(len(replayed.groups), len(original.groups))
        self.assertEqual(len(replayed.dp), len(original.dp))
        self.assertEqual(replayed.published, original.published)
        self.check_release(replayed)

    def release_records(self, release: int) -> List[Dict[str, Any]]:
        return [r for r in read_raw(self.bootstrap, [OUTPUT.events, OUTPUT.releases, OUTPUT.counts])
                if self.share_of(r, release) is not None]

    def replay(self, records: List[Dict[str, Any]], to: Topics) -> None:
        rename = {OUTPUT.events: to.events, OUTPUT.releases: to.releases, OUTPUT.counts: to.counts}
        producer = Producer({"bootstrap.servers": self.bootstrap})
        for r in records:
            producer.produce(rename[r["topic"]], r["value"], r["key"], partition=r["partition"], headers=r["headers"])
        self.assertEqual(producer.flush(30), 0)

    def test_a_release_whose_events_are_gone_is_skipped_not_handed_out(self) -> None:
        # As when retention deletes a share's events before the reader reads them.
        first, second = self.releases[0], self.releases[2]
        self.replay(self.release_records(first.id), GONE)
        self.replay([r for r in self.release_records(second.id) if r["topic"] != OUTPUT.events or r["partition"] != 0],
                    GONE)
        with Reader(self.bootstrap, topics=GONE) as reader:
            release = reader.next_release(timeout=30)
            self.assertIsNotNone(release)
            assert release is not None
            self.assertEqual(release.id, first.id)
            self.assertIsNone(reader.next_release(timeout=8))
            self.assertEqual([d.release for d in reader.dropped], [second.id])
            self.assertIn("partition 0: 0 of", reader.dropped[0].reason)
        with Reader(self.bootstrap, topics=GONE, strict=True) as strict:
            self.assertEqual(strict.next_release(timeout=30).id, first.id)  # type: ignore[union-attr]
            with self.assertRaisesRegex(IncompleteReleaseError, f"release {second.id}: partition 0: 0 of"):
                strict.next_release(timeout=30)

    @staticmethod
    def share_of(r: Dict[str, Any], release: int) -> Optional[int]:
        """The input partition whose share of `release` the record is in, else None."""
        if r["topic"] == OUTPUT.events:
            return -1 if f'"release":{release},'.encode() in r["value"] else None
        key: Tuple[str, ...] = tuple((r["key"] or b"").decode().split("/"))
        return int(key[1]) if len(key) == 2 and key[0] == str(release) else None


if __name__ == "__main__":
    unittest.main()
