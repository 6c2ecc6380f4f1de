"""Recorded output of a real run, for the unit tests.

data/recorded-run.jsonl.gz holds every record of the three downstream
topics after this run (4 releases, 2 input partitions, 40 vehicles):

    vanon-kafka --brokers 1 --topic vehicle.events.raw:2 --topic vehicle.events.dlq:2 \\
        --topic vehicle.events.late:2 --topic vehicle.events.anonymized:2 --topic vehicle.releases:2 \\
        --topic vehicle.counts.dp:2 --topic vanon.state.changelog:2
    vanon run --config config/demo.yaml --set kafka.bootstrap=B ...
    vanon loadgen --bootstrap B --topic vehicle.events.raw --vehicles 40 --rate 80 --duration 34 --seed 7
    (stop vanon) tests/record_topics.py --bootstrap B --out data/recorded-run.jsonl.gz
"""

from __future__ import annotations

import gzip
import json
import os
import sys
from typing import Any, Dict, List

# The package from the source tree, unless the tests check an installed copy.
if not os.environ.get("VANON_READER_INSTALLED"):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from vanon_reader.records import Parser, Record, Topic  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "recorded-run.jsonl.gz")
KIND = {"vehicle.events.anonymized": Topic.EVENTS, "vehicle.releases": Topic.RELEASES,
        "vehicle.counts.dp": Topic.COUNTS}
PARTITIONS = 2


def raw_lines() -> List[Dict[str, Any]]:
    with gzip.open(DATA, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def to_record(parser: Parser, line: Dict[str, Any]) -> Record:
    headers = [("vanon.attempt", line["attempt"].encode())] if line["attempt"] else []
    key = line["key"].encode() if line["key"] is not None else None
    return parser.parse(KIND[line["topic"]], line["topic"], line["partition"], line["offset"], key,
                        line["value"].encode(), headers)


def records() -> List[Record]:
    parser = Parser()
    return [to_record(parser, line) for line in raw_lines()]


def is_summary(r: Record) -> bool:
    return r.kind is Topic.RELEASES and r.value["type"] == "summary"
