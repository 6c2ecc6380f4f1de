"""One record of vanon's output topics, parsed and checked against the
repository's JSON Schemas (``schemas/``, shipped inside this package)."""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple, Union

import jsonschema

# Header vanon puts on every record of a release transaction; random per
# transaction attempt. Records of one attempt belong together.
ATTEMPT_HEADER = "vanon.attempt"

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"


class Topic(enum.Enum):
    """The three downstream topics, by what they carry."""

    EVENTS = "anonymized-event.v1"
    RELEASES = "release-record.v2"
    COUNTS = "dp-count.v1"

    @property
    def schema_file(self) -> str:
        return f"{self.value}.schema.json"


class RecordError(ValueError):
    """A record that cannot be used: not JSON, or not what its schema says.

    The message starts with ``topic [partition] offset N:`` so that an
    operator can fetch the record (``kcat -C -t TOPIC -p P -o N -c 1``)."""

    def __init__(self, topic: str, partition: int, offset: int, reason: str) -> None:
        super().__init__(f"{topic} [{partition}] offset {offset}: {reason}")
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.reason = reason


@dataclass(frozen=True)
class Record:
    """A parsed record and where it was read."""

    kind: Topic
    topic: str
    partition: int
    offset: int
    key: Optional[str]
    attempt: Optional[str]
    value: Dict[str, Any]

    @property
    def release(self) -> int:
        return int(self.value["release"])

    @property
    def where(self) -> str:
        return f"{self.topic} [{self.partition}] offset {self.offset}"


Headers = Optional[Sequence[Tuple[str, Union[bytes, str, None]]]]


def attempt_of(headers: Headers) -> Optional[str]:
    for name, value in headers or ():
        if name == ATTEMPT_HEADER and value is not None:
            return value.decode() if isinstance(value, bytes) else value
    return None


class Parser:
    """Parses raw Kafka values into :class:`Record` and validates them.

    ``validate=False`` skips the schema check (JSON must still parse): about
    ten times faster, for a consumer that trusts its producer."""

    def __init__(self, schema_dir: Optional[Path] = None, validate: bool = True) -> None:
        self._validate = validate
        self._validators: Dict[Topic, jsonschema.protocols.Validator] = {}
        directory = Path(schema_dir) if schema_dir is not None else SCHEMA_DIR
        for kind in Topic:
            with open(directory / kind.schema_file, encoding="utf-8") as f:
                schema = json.load(f)
            cls = jsonschema.validators.validator_for(schema)
            cls.check_schema(schema)
            self._validators[kind] = cls(schema)

    def parse(self, kind: Topic, topic: str, partition: int, offset: int, key: Union[bytes, str, None],
              value: Union[bytes, str, None], headers: Headers = None) -> Record:
        if value is None:
            raise RecordError(topic, partition, offset, "empty value (tombstone) on a data topic")
        try:
            doc = json.loads(value)
        except (ValueError, UnicodeDecodeError) as e:
            raise RecordError(topic, partition, offset, f"not JSON: {e}") from None
        if not isinstance(doc, dict):
            raise RecordError(topic, partition, offset, "not a JSON object")
        if self._validate:
            self._check(kind, topic, partition, offset, doc)
        key_text = key.decode(errors="replace") if isinstance(key, bytes) else key
        return Record(kind, topic, partition, offset, key_text, attempt_of(headers), doc)

    def _check(self, kind: Topic, topic: str, partition: int, offset: int, doc: Mapping[str, Any]) -> None:
        error = jsonschema.exceptions.best_match(self._validators[kind].iter_errors(doc))
        if error is None:
            return
        path = "/".join(str(p) for p in error.absolute_path) or "(record)"
        raise RecordError(topic, partition, offset, f"does not match {kind.schema_file} at {path}: {error.message}")
