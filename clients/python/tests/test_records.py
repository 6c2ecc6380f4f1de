"""Parsing and schema validation: a bad record is named by topic, partition
and offset."""

from __future__ import annotations

import json
import unittest

from recorded import raw_lines, to_record
from vanon_reader.records import Parser, RecordError, Topic


class ParserTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.parser = Parser()
        cls.lines = raw_lines()

    def first(self, topic: str, contains: str = "") -> dict:
        return next(line for line in self.lines if line["topic"] == topic and contains in line["value"])

    def test_every_recorded_record_matches_its_schema(self) -> None:
        kinds = {to_record(self.parser, line).kind for line in self.lines}
        self.assertEqual(kinds, set(Topic))

    def test_attempt_header_and_key_are_kept(self) -> None:
        line = self.first("vehicle.releases", '"summary"')
        r = to_record(self.parser, line)
        self.assertEqual(r.attempt, line["attempt"])
        self.assertEqual(r.key, f"{r.release}/{r.value['partition']}")

    def check_refused(self, topic: str, kind: Topic, value: bytes, *fragments: str) -> None:
        with self.assertRaises(RecordError) as ctx:
            self.parser.parse(kind, topic, 3, 1234, None, value, None)
        message = str(ctx.exception)
        self.assertTrue(message.startswith(f"{topic} [3] offset 1234: "), message)
        for f in fragments:
            self.assertIn(f, message)
        self.assertEqual((ctx.exception.topic, ctx.exception.partition, ctx.exception.offset), (topic, 3, 1234))

    def test_an_event_without_its_group_is_refused_with_where_and_why(self) -> None:
        doc = json.loads(self.first("vehicle.events.anonymized")["value"])
        del doc["group"]
        self.check_refused("vehicle.events.anonymized", Topic.EVENTS, json.dumps(doc).encode(),
                           "anonymized-event.v1.schema.json", "'group' is a required property")

    def test_a_group_record_with_a_tuple_token_is_refused(self) -> None:
        # Version 1 paired tokens with values; version 2 must never carry them.
        doc = json.loads(self.first("vehicle.releases", '"group"')["value"])
        doc["tuples"] = [{"tuple": "t-0123456789abcdef", "sensitive": "Queen"}]
        self.check_refused("vehicle.releases", Topic.RELEASES, json.dumps(doc).encode(), "release-record.v2")

    def test_a_dp_count_with_a_fractional_value_is_refused(self) -> None:
        doc = json.loads(self.first("vehicle.counts.dp", '"kind":"count"')["value"])
        doc["value"] = 1.5
        self.check_refused("vehicle.counts.dp", Topic.COUNTS, json.dumps(doc).encode(), "dp-count.v1", "value")

    def test_not_json_and_tombstones_are_refused(self) -> None:
        self.check_refused("vehicle.releases", Topic.RELEASES, b"{not json", "not JSON")
        self.check_refused("vehicle.releases", Topic.RELEASES, b"[1, 2]", "not a JSON object")
        with self.assertRaisesRegex(RecordError, "tombstone"):
            self.parser.parse(Topic.RELEASES, "vehicle.releases", 0, 5, None, None, None)

    def test_validation_can_be_turned_off_but_json_is_still_required(self) -> None:
        loose = Parser(validate=False)
        r = loose.parse(Topic.EVENTS, "t", 0, 1, None, b'{"release": 7}', None)
        self.assertEqual(r.release, 7)
        with self.assertRaises(RecordError):
            loose.parse(Topic.EVENTS, "t", 0, 1, None, b"nope", None)


if __name__ == "__main__":
    unittest.main()
