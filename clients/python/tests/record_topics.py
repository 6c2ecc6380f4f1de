#!/usr/bin/python3
"""Writes what vanon's three downstream topics hold now, as JSON lines, in
the order a consumer could have read it (each partition in offset order,
partitions interleaved round-robin). The unit tests replay such recordings.

    record_topics.py --bootstrap HOST:PORT --out FILE.jsonl.gz

Each line: {"topic", "partition", "offset", "key", "attempt", "value"} with
the record's value as the original text. Read with read_committed.
"""

from __future__ import annotations

import argparse
import gzip
import json
import uuid
from typing import Dict, List, Tuple

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, TopicPartition

TOPICS = ("vehicle.events.anonymized", "vehicle.releases", "vehicle.counts.dp")


def read_all(bootstrap: str) -> Dict[Tuple[str, int], List[dict]]:
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": uuid.uuid4().hex, "enable.auto.commit": False,
                  "isolation.level": "read_committed", "enable.partition.eof": True})
    md = c.list_topics(timeout=10)
    parts = [TopicPartition(t, p, OFFSET_BEGINNING) for t in TOPICS for p in md.topics[t].partitions]
    c.assign(parts)
    out: Dict[Tuple[str, int], List[dict]] = {(tp.topic, tp.partition): [] for tp in parts}
    at_end = set()
    while len(at_end) < len(parts):
        for m in c.consume(num_messages=1000, timeout=5):
            tp = (m.topic(), m.partition())
            if m.error() is not None:
                if m.error().code() == KafkaError._PARTITION_EOF:
                    at_end.add(tp)
                    continue
                raise RuntimeError(str(m.error()))
            headers = dict(m.headers() or [])
            attempt = headers.get("vanon.attempt")
            out[tp].append({"topic": m.topic(), "partition": m.partition(), "offset": m.offset(),
                            "key": m.key().decode() if m.key() else None,
                            "attempt": attempt.decode() if attempt else None, "value": m.value().decode()})
    c.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bootstrap", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    per_partition = read_all(args.bootstrap)
    queues = [list(v) for _, v in sorted(per_partition.items())]
    with gzip.open(args.out, "wt", encoding="utf-8") as f:
        while any(queues):
            for q in queues:
                for line in q[:50]:
                    f.write(json.dumps(line, separators=(",", ":")) + "\n")
                del q[:50]


if __name__ == "__main__":
    main()
